import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Builds from Git (issue 28): the build records and the log lines of running builds.
 * pg-boss keeps its queue in its own `pgboss` schema, created and migrated by pg-boss
 * itself when a builder or an API instance first uses the queue.
 */
export class Builds1763770070000 implements MigrationInterface {
  name = 'Builds1763770070000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "builds" ("id" text NOT NULL, "project_id" text NOT NULL, "workspace_id" text NOT NULL, "status" text NOT NULL, "trigger" text NOT NULL, "ref" text NOT NULL, "branch" text, "commit_sha" text, "commit_message" text, "pull_request" integer, "deployment_id" text, "url" text, "detected" jsonb, "error" text, "created_by" text NOT NULL, "builder_id" text, "lease_expires_at" TIMESTAMP(3) WITH TIME ZONE, "log_stored" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP(3) WITH TIME ZONE, "finished_at" TIMESTAMP(3) WITH TIME ZONE, "duration_ms" integer, CONSTRAINT "CHK_builds_status" CHECK ("status" IN ('queued', 'running', 'ready', 'failed', 'canceled', 'timed_out')), CONSTRAINT "CHK_builds_trigger" CHECK ("trigger" IN ('manual', 'push', 'pull_request')), CONSTRAINT "PK_builds" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_builds_project_created" ON "builds" ("project_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_builds_workspace_active" ON "builds" ("workspace_id") WHERE "status" IN ('queued', 'running')`);
    await queryRunner.query(`CREATE INDEX "IDX_builds_lease" ON "builds" ("lease_expires_at") WHERE "status" = 'running'`);
    await queryRunner.query(
      `CREATE TABLE "build_log_chunks" ("id" BIGSERIAL NOT NULL, "build_id" text NOT NULL, "text" text NOT NULL, CONSTRAINT "PK_build_log_chunks" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_build_log_chunks_build" ON "build_log_chunks" ("build_id", "id") `);
    await queryRunner.query(
      `ALTER TABLE "builds" ADD CONSTRAINT "FK_builds_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "build_log_chunks" ADD CONSTRAINT "FK_build_log_chunks_build" FOREIGN KEY ("build_id") REFERENCES "builds"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "build_log_chunks" DROP CONSTRAINT "FK_build_log_chunks_build"`);
    await queryRunner.query(`ALTER TABLE "builds" DROP CONSTRAINT "FK_builds_project"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_build_log_chunks_build"`);
    await queryRunner.query(`DROP TABLE "build_log_chunks"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_builds_lease"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_builds_workspace_active"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_builds_project_created"`);
    await queryRunner.query(`DROP TABLE "builds"`);
    await queryRunner.query(`DROP SCHEMA IF EXISTS "pgboss" CASCADE`);
  }
}
