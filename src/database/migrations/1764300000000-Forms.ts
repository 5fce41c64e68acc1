import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Forms on hosted sites (issue 30): the forms each deployment declares, a project's forms
 * by name, their submissions sealed like leads, and what each HTML blob declares (parsed
 * once per content).
 */
export class Forms1764300000000 implements MigrationInterface {
  name = 'Forms1764300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "deployments" ADD "forms" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      `CREATE TABLE "forms" ("id" text NOT NULL, "project_id" text NOT NULL, "workspace_id" text NOT NULL, "name" text NOT NULL, "fields" text array NOT NULL DEFAULT '{}', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "submission_count" integer NOT NULL DEFAULT '0', "spam_count" integer NOT NULL DEFAULT '0', "last_submission_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_forms" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_forms_project_name" ON "forms" ("project_id", "name") `);
    await queryRunner.query(
      `CREATE TABLE "form_submissions" ("id" text NOT NULL, "form_id" text NOT NULL, "project_id" text NOT NULL, "workspace_id" text NOT NULL, "deployment_id" text NOT NULL, "key_id" text NOT NULL, "nonce" bytea NOT NULL, "ciphertext" bytea NOT NULL, "index_key_id" text NOT NULL, "search_tokens" integer array NOT NULL, "spam" boolean NOT NULL DEFAULT false, "spam_reason" text, "lead_id" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "CHK_form_submissions_nonce_length" CHECK (octet_length("nonce") = 12), CONSTRAINT "PK_form_submissions" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_form_submissions_search_tokens" ON "form_submissions" USING gin ("search_tokens") `);
    await queryRunner.query(`CREATE INDEX "IDX_form_submissions_form_spam_created" ON "form_submissions" ("form_id", "spam", "created_at", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_form_submissions_form_created" ON "form_submissions" ("form_id", "created_at", "id") `);
    await queryRunner.query(
      `CREATE TABLE "html_form_scans" ("sha256" text NOT NULL, "forms" jsonb NOT NULL, "scanned_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_html_form_scans" PRIMARY KEY ("sha256"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "forms" ADD CONSTRAINT "FK_forms_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "form_submissions" ADD CONSTRAINT "FK_form_submissions_form" FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "form_submissions" DROP CONSTRAINT "FK_form_submissions_form"`);
    await queryRunner.query(`ALTER TABLE "forms" DROP CONSTRAINT "FK_forms_project"`);
    await queryRunner.query(`DROP TABLE "html_form_scans"`);
    await queryRunner.query(`DROP TABLE "form_submissions"`);
    await queryRunner.query(`DROP TABLE "forms"`);
    await queryRunner.query(`ALTER TABLE "deployments" DROP COLUMN "forms"`);
  }
}
