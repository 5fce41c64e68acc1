import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 32: passkeys (WebAuthn credentials, several per user) and the challenges this
 * service issued for them, kept here rather than in one instance's memory so any
 * instance can check an answer. Challenges are stored as SHA-256 only.
 */
export class Passkeys1764500002000 implements MigrationInterface {
  name = 'Passkeys1764500002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "passkeys" ("id" text NOT NULL, "user_id" text NOT NULL, "credential_id" text NOT NULL, "public_key" bytea NOT NULL, "counter" bigint NOT NULL, "transports" text array NOT NULL, "device_type" text NOT NULL, "backed_up" boolean NOT NULL, "name" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "CHK_passkeys_device_type" CHECK ("device_type" IN ('singleDevice', 'multiDevice')), CONSTRAINT "PK_passkeys" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_passkeys_user" ON "passkeys" ("user_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_passkeys_credential_id" ON "passkeys" ("credential_id") `);
    await queryRunner.query(
      `ALTER TABLE "passkeys" ADD CONSTRAINT "FK_passkeys_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "passkey_challenges" ("id" uuid NOT NULL, "token_hash" text NOT NULL, "purpose" text NOT NULL, "user_id" text, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "CHK_passkey_challenges_purpose" CHECK ("purpose" IN ('registration', 'authentication')), CONSTRAINT "PK_passkey_challenges" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_passkey_challenges_token_hash" ON "passkey_challenges" ("token_hash") `);
    await queryRunner.query(`CREATE INDEX "IDX_passkey_challenges_expires_at" ON "passkey_challenges" ("expires_at") `);
    await queryRunner.query(
      `ALTER TABLE "passkey_challenges" ADD CONSTRAINT "FK_passkey_challenges_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // A passkey is a second factor for a workspace's requireTwoFactor: its last one deleted, every
    // instance's guard must ask again (the credential cache keeps only a "has one" by epoch).
    await queryRunner.query(
      `CREATE TRIGGER "passkeys_auth_epoch" AFTER UPDATE OF "user_id" OR DELETE ON "passkeys" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_epoch"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "passkeys_auth_epoch" ON "passkeys"`);
    await queryRunner.query(`DROP TABLE "passkey_challenges"`);
    await queryRunner.query(`DROP TABLE "passkeys"`);
  }
}
