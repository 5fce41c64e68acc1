import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 32: the audit log and the end of each workspace's hash chain. No foreign keys to
 * `workspaces`: the log outlives a deleted workspace until its retention ends.
 *
 * `audit_entry_hash` is the one definition of an entry's hash: the SHA-256 of the previous
 * entry's hash followed by the entry's fields as a JSON array (jsonb's text form is
 * canonical, and the time goes in as epoch microseconds so the session's time zone cannot
 * change it). Writes and the verify endpoint both call it.
 */
export class AuditLog1764500000000 implements MigrationInterface {
  name = 'AuditLog1764500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_log" ("id" text NOT NULL, "workspace_id" text NOT NULL, "seq" bigint NOT NULL, "at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "actor_type" text NOT NULL, "actor_id" text, "actor_label" text NOT NULL, "action" text NOT NULL, "target_type" text, "target_id" text, "target_label" text, "ip" text, "user_agent" text, "request_id" text, "changes" jsonb NOT NULL DEFAULT '[]', "prev_hash" text NOT NULL, "hash" text NOT NULL, CONSTRAINT "CHK_audit_log_actor_type" CHECK ("actor_type" IN ('user', 'token', 'system')), CONSTRAINT "PK_audit_log" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_audit_log_workspace_seq" ON "audit_log" ("workspace_id", "seq") `);
    await queryRunner.query(`CREATE INDEX "IDX_audit_log_workspace_at" ON "audit_log" ("workspace_id", "at") `);
    await queryRunner.query(
      `CREATE TABLE "audit_heads" ("workspace_id" text NOT NULL, "seq" bigint NOT NULL, "last_hash" text NOT NULL, "prev_hash" text NOT NULL, CONSTRAINT "PK_audit_heads" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(`
      CREATE FUNCTION audit_entry_hash(
        prev_hash text, id text, workspace_id text, seq bigint, at timestamptz, actor_type text, actor_id text, actor_label text,
        action text, target_type text, target_id text, target_label text, ip text, user_agent text, request_id text, changes jsonb
      ) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT encode(sha256(convert_to(prev_hash || jsonb_build_array(
          id, workspace_id, seq, (extract(epoch FROM at) * 1000000)::bigint, actor_type, actor_id, actor_label,
          action, target_type, target_id, target_label, ip, user_agent, request_id, changes
        )::text, 'UTF8')), 'hex')
      $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION audit_entry_hash`);
    await queryRunner.query(`DROP TABLE "audit_heads"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_audit_log_workspace_at"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_audit_log_workspace_seq"`);
    await queryRunner.query(`DROP TABLE "audit_log"`);
  }
}
