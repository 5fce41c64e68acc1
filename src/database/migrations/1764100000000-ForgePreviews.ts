import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Git forges (issue 29): the project's webhook secret (sealed like its access token),
 * whether fork pull requests build, which forge hears back; the deliveries already acted
 * on; the branch and pull-request preview aliases; and on each build whether it came
 * from a fork and whether the forge was told.
 */
export class ForgePreviews1764100000000 implements MigrationInterface {
  name = 'ForgePreviews1764100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "project_git" ADD "webhook_key_id" text, ADD "webhook_nonce" bytea, ADD "webhook_ciphertext" bytea, ADD "build_fork_pull_requests" boolean NOT NULL DEFAULT false, ADD "forge" text`,
    );
    await queryRunner.query(
      `ALTER TABLE "project_git" ADD CONSTRAINT "CHK_project_git_webhook_secret" CHECK (("webhook_key_id" IS NULL) = ("webhook_ciphertext" IS NULL) AND ("webhook_nonce" IS NULL) = ("webhook_ciphertext" IS NULL))`,
    );
    await queryRunner.query(`ALTER TABLE "project_git" ADD CONSTRAINT "CHK_project_git_webhook_nonce_length" CHECK (octet_length("webhook_nonce") = 12)`);
    await queryRunner.query(`ALTER TABLE "project_git" ADD CONSTRAINT "CHK_project_git_forge" CHECK ("forge" IN ('github', 'gitlab', 'gitea', 'forgejo'))`);
    await queryRunner.query(
      `CREATE TABLE "git_deliveries" ("project_id" text NOT NULL, "delivery_id" text NOT NULL, "forge" text NOT NULL, "event" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_git_deliveries" PRIMARY KEY ("project_id", "delivery_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_git_deliveries_created" ON "git_deliveries" ("created_at") `);
    await queryRunner.query(
      `ALTER TABLE "git_deliveries" ADD CONSTRAINT "FK_git_deliveries_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "preview_aliases" ("project_id" text NOT NULL, "kind" text NOT NULL, "name" text NOT NULL, "label" text NOT NULL, "deployment_id" text NOT NULL, "build_id" text, "commit_sha" text, "branch" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_preview_aliases_kind" CHECK ("kind" IN ('branch', 'pull_request')), CONSTRAINT "PK_preview_aliases" PRIMARY KEY ("project_id", "kind", "name"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_preview_aliases_label" ON "preview_aliases" ("label") `);
    await queryRunner.query(
      `ALTER TABLE "preview_aliases" ADD CONSTRAINT "FK_preview_aliases_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "preview_aliases" ADD CONSTRAINT "FK_preview_aliases_deployment" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "builds" ADD "fork" boolean NOT NULL DEFAULT false, ADD "forge_status" text, ADD "forge_error" text`);
    await queryRunner.query(`ALTER TABLE "builds" ADD CONSTRAINT "CHK_builds_forge_status" CHECK ("forge_status" IN ('pending', 'posted', 'failed'))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "builds" DROP CONSTRAINT "CHK_builds_forge_status"`);
    await queryRunner.query(`ALTER TABLE "builds" DROP COLUMN "forge_error", DROP COLUMN "forge_status", DROP COLUMN "fork"`);
    await queryRunner.query(`ALTER TABLE "preview_aliases" DROP CONSTRAINT "FK_preview_aliases_deployment"`);
    await queryRunner.query(`ALTER TABLE "preview_aliases" DROP CONSTRAINT "FK_preview_aliases_project"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_preview_aliases_label"`);
    await queryRunner.query(`DROP TABLE "preview_aliases"`);
    await queryRunner.query(`ALTER TABLE "git_deliveries" DROP CONSTRAINT "FK_git_deliveries_project"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_git_deliveries_created"`);
    await queryRunner.query(`DROP TABLE "git_deliveries"`);
    await queryRunner.query(`ALTER TABLE "project_git" DROP CONSTRAINT "CHK_project_git_forge"`);
    await queryRunner.query(`ALTER TABLE "project_git" DROP CONSTRAINT "CHK_project_git_webhook_nonce_length"`);
    await queryRunner.query(`ALTER TABLE "project_git" DROP CONSTRAINT "CHK_project_git_webhook_secret"`);
    await queryRunner.query(
      `ALTER TABLE "project_git" DROP COLUMN "forge", DROP COLUMN "build_fork_pull_requests", DROP COLUMN "webhook_ciphertext", DROP COLUMN "webhook_nonce", DROP COLUMN "webhook_key_id"`,
    );
  }
}
