import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Exact search counts without decrypting every match: each lead's domain digest and
 * local-part tokens, and the workspace's sealed domain dictionary. Leads stored before
 * keep NULLs until `npm run leads:rotate` fills them in (docs/security.md).
 */
export class LeadDomains1763770007000 implements MigrationInterface {
  name = 'LeadDomains1763770007000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lead_domains" ("workspace_id" text NOT NULL, "domain_hash" bytea NOT NULL, "index_key_id" text NOT NULL, "key_id" text NOT NULL, "domain_nonce" bytea NOT NULL, "domain_ciphertext" bytea NOT NULL, "search_tokens" integer array NOT NULL, CONSTRAINT "PK_lead_domains" PRIMARY KEY ("workspace_id", "domain_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_lead_domains_search_tokens" ON "lead_domains" USING gin ("search_tokens") `);
    await queryRunner.query(`ALTER TABLE "leads" ADD "domain_hash" bytea`);
    await queryRunner.query(`ALTER TABLE "leads" ADD "local_tokens" integer array`);
    await queryRunner.query(`CREATE INDEX "IDX_leads_local_tokens" ON "leads" USING gin ("local_tokens") `);
    await queryRunner.query(`CREATE INDEX "IDX_leads_unsplit" ON "leads" ("workspace_id") WHERE "domain_hash" IS NULL`);
    await queryRunner.query(`CREATE INDEX "IDX_leads_project_domain" ON "leads" ("project_id", "domain_hash", "captured_at", "id") `);
    await queryRunner.query(`CREATE INDEX "IDX_leads_workspace_domain" ON "leads" ("workspace_id", "domain_hash", "captured_at", "id") `);
    await queryRunner.query(
      `ALTER TABLE "lead_domains" ADD CONSTRAINT "FK_lead_domains_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lead_domains" DROP CONSTRAINT "FK_lead_domains_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_workspace_domain"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_project_domain"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_unsplit"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_leads_local_tokens"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN "local_tokens"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN "domain_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_lead_domains_search_tokens"`);
    await queryRunner.query(`DROP TABLE "lead_domains"`);
  }
}
