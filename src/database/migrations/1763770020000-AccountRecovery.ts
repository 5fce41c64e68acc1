import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Verified addresses and the mailed single-use tokens (email verification, password
 * reset), stored as SHA-256 only. Login and mail throttling reuse the rate-limiter
 * table of the gates (gate_rate_limits) under their own key prefixes.
 */
export class AccountRecovery1763770020000 implements MigrationInterface {
  name = 'AccountRecovery1763770020000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "email_verified_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE TABLE "account_tokens" ("id" uuid NOT NULL, "user_id" text NOT NULL, "purpose" text NOT NULL, "email" text NOT NULL, "token_hash" text NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "used_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "CHK_account_tokens_purpose" CHECK ("purpose" IN ('verify_email', 'password_reset')), CONSTRAINT "PK_account_tokens" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_account_tokens_user" ON "account_tokens" ("user_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_account_tokens_token_hash" ON "account_tokens" ("token_hash")`);
    await queryRunner.query(
      `ALTER TABLE "account_tokens" ADD CONSTRAINT "FK_account_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "account_tokens"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "email_verified_at"`);
  }
}
