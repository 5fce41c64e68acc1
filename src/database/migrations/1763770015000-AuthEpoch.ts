import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * One counter that every change able to take a right away bumps, in the changing
 * transaction: revoking or deleting an API token (or changing its expiry, scopes or
 * project), ending a session, and changing, deactivating or removing a membership.
 * Instances cache credentials per epoch and read the counter once per request (see
 * src/auth/auth-epoch.ts), so a change committed anywhere is seen by the next request
 * on every instance. Triggers, not service code, so no path (a bulk revoke, a cascade,
 * an operator's SQL) can forget it. Creating things does not bump it: nothing cached
 * can be made wrong by a new row (unknown tokens and non-members are never cached).
 */
export class AuthEpoch1763770015000 implements MigrationInterface {
  name = 'AuthEpoch1763770015000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "auth_epoch" ("id" boolean PRIMARY KEY DEFAULT true CHECK ("id"), "epoch" bigint NOT NULL)`);
    await queryRunner.query(`INSERT INTO "auth_epoch" ("id", "epoch") VALUES (true, 1)`);
    await queryRunner.query(`CREATE FUNCTION "bump_auth_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "auth_epoch" SET "epoch" = "epoch" + 1;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "access_tokens_auth_epoch" AFTER UPDATE OF "revoked_at", "expires_at", "scopes", "project_id", "workspace_id", "token_hash" OR DELETE ON "access_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_epoch"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "refresh_tokens_auth_epoch" AFTER UPDATE OF "revoked_at", "user_id", "family_id" OR DELETE ON "refresh_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_epoch"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "workspace_members_auth_epoch" AFTER UPDATE OF "role", "status", "user_id", "workspace_id" OR DELETE ON "workspace_members" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_epoch"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "workspace_members_auth_epoch" ON "workspace_members"`);
    await queryRunner.query(`DROP TRIGGER "refresh_tokens_auth_epoch" ON "refresh_tokens"`);
    await queryRunner.query(`DROP TRIGGER "access_tokens_auth_epoch" ON "access_tokens"`);
    await queryRunner.query(`DROP FUNCTION "bump_auth_epoch"()`);
    await queryRunner.query(`DROP TABLE "auth_epoch"`);
  }
}
