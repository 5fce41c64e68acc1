import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Projects, deployments with their manifests, content-addressed blobs, idempotency keys. */
export class ProjectsDeployments1763770001000 implements MigrationInterface {
  name = 'ProjectsDeployments1763770001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("workspace_id" text NOT NULL, "key" text NOT NULL, "request_hash" text NOT NULL, "response_status" integer, "response_body" jsonb, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_d66f5bd69869bc039c871fe7d17" PRIMARY KEY ("workspace_id", "key"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_5e72f040fdc5efc8eef52a388c" ON "idempotency_keys"  ("created_at") `);
    await queryRunner.query(
      `CREATE TABLE "blobs" ("sha256" text NOT NULL, "size" bigint NOT NULL, "stored" boolean NOT NULL DEFAULT false, "last_claimed_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_bf448430f9a07c61c2eb85de185" PRIMARY KEY ("sha256"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "projects" ("id" text NOT NULL, "workspace_id" text NOT NULL, "name" text NOT NULL, "slug" text NOT NULL, "type" text NOT NULL DEFAULT 'static_file', "default_ttl" text NOT NULL DEFAULT '7d', "gate_type" text NOT NULL DEFAULT 'none', "password_hash" text, "gate_version" integer NOT NULL DEFAULT '1', "last_version" integer NOT NULL DEFAULT '0', "live_deployment_id" text, "custom_domain" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_projects_gate_type" CHECK ("gate_type" IN ('none', 'password', 'email')), CONSTRAINT "CHK_projects_type" CHECK ("type" IN ('static_file', 'static_site')), CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_af78b8fc6857fe0a10d1bb1699" ON "projects"  ("workspace_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_projects_slug" ON "projects"  ("slug") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_projects_custom_domain" ON "projects"  ("custom_domain") WHERE "custom_domain" IS NOT NULL`);
    await queryRunner.query(
      `CREATE TABLE "deployments" ("id" text NOT NULL, "project_id" text NOT NULL, "workspace_id" text NOT NULL, "version" integer NOT NULL, "status" text NOT NULL, "size_bytes" bigint NOT NULL, "file_count" integer NOT NULL, "ttl" text NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE, "created_by" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_deployments_project_version" UNIQUE ("project_id", "version"), CONSTRAINT "CHK_deployments_status" CHECK ("status" IN ('live', 'archived', 'expired')), CONSTRAINT "PK_1e5627acb3c950deb83fe98fc48" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_2aa61ef61fc263b94a6b771ea3" ON "deployments"  ("workspace_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_deployments_expiry" ON "deployments"  ("expires_at") WHERE "status" <> 'expired' AND "expires_at" IS NOT NULL`);
    await queryRunner.query(
      `CREATE TABLE "deployment_files" ("deployment_id" text NOT NULL, "path" text NOT NULL, "sha256" text NOT NULL, "size" bigint NOT NULL, "content_type" text NOT NULL, CONSTRAINT "PK_f05049b27a03937230f47b8c69d" PRIMARY KEY ("deployment_id", "path"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_deployment_files_sha256" ON "deployment_files"  ("sha256") `);
    await queryRunner.query(
      `ALTER TABLE "projects" ADD CONSTRAINT "FK_projects_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "deployments" ADD CONSTRAINT "FK_deployments_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "deployment_files" ADD CONSTRAINT "FK_deployment_files_deployment" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "access_tokens" ADD CONSTRAINT "FK_access_tokens_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "access_tokens" DROP CONSTRAINT "FK_access_tokens_project"`);
    await queryRunner.query(`ALTER TABLE "deployment_files" DROP CONSTRAINT "FK_deployment_files_deployment"`);
    await queryRunner.query(`ALTER TABLE "deployments" DROP CONSTRAINT "FK_deployments_project"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP CONSTRAINT "FK_projects_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_deployment_files_sha256"`);
    await queryRunner.query(`DROP TABLE "deployment_files"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_deployments_expiry"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_2aa61ef61fc263b94a6b771ea3"`);
    await queryRunner.query(`DROP TABLE "deployments"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_projects_custom_domain"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_projects_slug"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_af78b8fc6857fe0a10d1bb1699"`);
    await queryRunner.query(`DROP TABLE "projects"`);
    await queryRunner.query(`DROP TABLE "blobs"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_5e72f040fdc5efc8eef52a388c"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
