import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Leads of the email gate (sealed emails, keyed dedupe digests, trigram blind
 * index) and their per-project counters. See src/leads/ and docs/security.md.
 */
export class Leads1763770003000 implements MigrationInterface {
  name = 'Leads1763770003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lead_counters" ("project_id" text NOT NULL, "workspace_id" text NOT NULL, "lead_count" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_lead_counters" PRIMARY KEY ("project_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_lead_counters_workspace" ON "lead_counters" ("workspace_id") `);
    await queryRunner.query(
      `CREATE TABLE "leads" ("id" text NOT NULL, "workspace_id" text NOT NULL, "project_id" text NOT NULL, "key_id" text NOT NULL, "email_nonce" bytea NOT NULL, "email_ciphertext" bytea NOT NULL, "index_key_id" text NOT NULL, "email_hash" bytea NOT NULL, "search_tokens" integer array NOT NULL, "captured_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "CHK_leads_email_nonce_length" CHECK (octet_length("email_nonce") = 12), CONSTRAINT "PK_leads" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_leads_search_tokens" ON "leads" USING gin ("search_tokens") `);
    await queryRunner.query(`CREATE INDEX "IDX_leads_project_captured" ON "leads" ("project_id", "captured_at", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_leads_workspace_captured" ON "leads" ("workspace_id", "captured_at", "id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_leads_project_email_hash" ON "leads" ("project_id", "email_hash") `);
    await queryRunner.query(
      `ALTER TABLE "lead_counters" ADD CONSTRAINT "FK_lead_counters_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "leads" ADD CONSTRAINT "FK_leads_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "leads" DROP CONSTRAINT "FK_leads_project"`);
    await queryRunner.query(`ALTER TABLE "lead_counters" DROP CONSTRAINT "FK_lead_counters_project"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_leads_project_email_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_workspace_captured"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_project_captured"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_search_tokens"`);
    await queryRunner.query(`DROP TABLE "leads"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_lead_counters_workspace"`);
    await queryRunner.query(`DROP TABLE "lead_counters"`);
  }
}
