import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Two-factor sign-in (issue 32): a user's TOTP authenticator, their recovery codes, the
 * challenges of sign-ins waiting for a second factor, and a workspace's policy that its
 * members have one. Turning the policy on or off and turning TOTP off bump the auth epoch
 * (migration AuthEpoch), so the guard's cached "may this member act here" is asked again
 * on every instance; turning TOTP on needs no bump, as the guard never caches a refusal.
 */
export class TwoFactor1764500001000 implements MigrationInterface {
  name = 'TwoFactor1764500001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "totp_credentials" ("user_id" text NOT NULL, "secret_key_id" text NOT NULL, "secret_nonce" bytea NOT NULL, "secret_ciphertext" bytea NOT NULL, "enabled_at" TIMESTAMP(3) WITH TIME ZONE, "last_used_step" bigint, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_totp_credentials" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "recovery_codes" ("code_hash" text NOT NULL, "user_id" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_recovery_codes" PRIMARY KEY ("code_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_recovery_codes_user" ON "recovery_codes" ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "login_challenges" ("token_hash" text NOT NULL, "user_id" text NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_login_challenges" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_login_challenges_user" ON "login_challenges" ("user_id") `);
    await queryRunner.query(
      `ALTER TABLE "totp_credentials" ADD CONSTRAINT "FK_totp_credentials_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "recovery_codes" ADD CONSTRAINT "FK_recovery_codes_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "login_challenges" ADD CONSTRAINT "FK_login_challenges_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "require_two_factor" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE TRIGGER "workspaces_two_factor_auth_epoch" AFTER UPDATE OF "require_two_factor" ON "workspaces" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_epoch"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "totp_credentials_auth_epoch" AFTER UPDATE OF "enabled_at", "user_id" OR DELETE ON "totp_credentials" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_epoch"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "totp_credentials_auth_epoch" ON "totp_credentials"`);
    await queryRunner.query(`DROP TRIGGER "workspaces_two_factor_auth_epoch" ON "workspaces"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "require_two_factor"`);
    await queryRunner.query(`ALTER TABLE "login_challenges" DROP CONSTRAINT "FK_login_challenges_user"`);
    await queryRunner.query(`ALTER TABLE "recovery_codes" DROP CONSTRAINT "FK_recovery_codes_user"`);
    await queryRunner.query(`ALTER TABLE "totp_credentials" DROP CONSTRAINT "FK_totp_credentials_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_login_challenges_user"`);
    await queryRunner.query(`DROP TABLE "login_challenges"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_recovery_codes_user"`);
    await queryRunner.query(`DROP TABLE "recovery_codes"`);
    await queryRunner.query(`DROP TABLE "totp_credentials"`);
  }
}
