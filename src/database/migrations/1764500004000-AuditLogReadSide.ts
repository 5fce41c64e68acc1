import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 32, the audit log's read side and visible sessions: where retention cut each
 * workspace's chain (so verify starts there), an index for its cut-off, and what a person
 * sees of each sign-in session (`auth_sessions`, one row per refresh-token family).
 * Sessions open before this migration get a row from their tokens, without a device.
 */
export class AuditLogReadSide1764500004000 implements MigrationInterface {
  name = 'AuditLogReadSide1764500004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_heads" ADD "pruned_seq" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "audit_heads" ADD "pruned_hash" text NOT NULL DEFAULT ''`);
    await queryRunner.query(`CREATE INDEX "IDX_audit_log_at" ON "audit_log" ("at") `);
    await queryRunner.query(
      `CREATE TABLE "auth_sessions" ("id" uuid NOT NULL, "user_id" text NOT NULL, "device" text, "ip" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_auth_sessions" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_auth_sessions_user" ON "auth_sessions" ("user_id") `);
    await queryRunner.query(
      `ALTER TABLE "auth_sessions" ADD CONSTRAINT "FK_auth_sessions_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`
      INSERT INTO "auth_sessions" ("id", "user_id", "device", "ip", "created_at", "last_used_at")
      SELECT "family_id", min("user_id"), NULL, NULL, min("created_at"), max("created_at")
      FROM "refresh_tokens" GROUP BY "family_id"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "auth_sessions" DROP CONSTRAINT "FK_auth_sessions_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_auth_sessions_user"`);
    await queryRunner.query(`DROP TABLE "auth_sessions"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_audit_log_at"`);
    await queryRunner.query(`ALTER TABLE "audit_heads" DROP COLUMN "pruned_hash"`);
    await queryRunner.query(`ALTER TABLE "audit_heads" DROP COLUMN "pruned_seq"`);
  }
}
