import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Builds from Git: a project's repository and build settings (project_git, one row per
 * project) and its build environment variables (project_env_vars). The access token
 * and the values are sealed with the leads keyring (src/git/git-secrets.ts).
 */
export class GitSettings1763770060000 implements MigrationInterface {
  name = 'GitSettings1763770060000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "project_git" ("project_id" text NOT NULL, "repository" text NOT NULL, "production_branch" text NOT NULL, "root_directory" text NOT NULL DEFAULT '', "install_command" text, "build_command" text, "output_directory" text, "node_version" text, "token_key_id" text, "token_nonce" bytea, "token_ciphertext" bytea, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_project_git_token_nonce_length" CHECK (octet_length("token_nonce") = 12), CONSTRAINT "CHK_project_git_token" CHECK (("token_key_id" IS NULL) = ("token_ciphertext" IS NULL) AND ("token_nonce" IS NULL) = ("token_ciphertext" IS NULL)), CONSTRAINT "PK_project_git" PRIMARY KEY ("project_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "project_env_vars" ("project_id" text NOT NULL, "name" text NOT NULL, "targets" text array NOT NULL, "key_id" text NOT NULL, "value_nonce" bytea NOT NULL, "value_ciphertext" bytea NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_project_env_vars_value_nonce_length" CHECK (octet_length("value_nonce") = 12), CONSTRAINT "CHK_project_env_vars_targets" CHECK (cardinality("targets") > 0 AND "targets" <@ ARRAY['production', 'preview']::text[]), CONSTRAINT "PK_project_env_vars" PRIMARY KEY ("project_id", "name"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "project_git" ADD CONSTRAINT "FK_project_git_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "project_env_vars" ADD CONSTRAINT "FK_project_env_vars_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "project_env_vars" DROP CONSTRAINT "FK_project_env_vars_project"`);
    await queryRunner.query(`ALTER TABLE "project_git" DROP CONSTRAINT "FK_project_git_project"`);
    await queryRunner.query(`DROP TABLE "project_env_vars"`);
    await queryRunner.query(`DROP TABLE "project_git"`);
  }
}
