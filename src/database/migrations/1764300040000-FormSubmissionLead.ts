import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 30: a form submission names the email gate's lead of the same visitor. Erasing
 * the lead unlinks its submissions (SET NULL), through the partial index on the link.
 */
export class FormSubmissionLead1764300040000 implements MigrationInterface {
  name = 'FormSubmissionLead1764300040000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Nothing was linked before this migration: no row can break the constraint.
    await queryRunner.query(`CREATE INDEX "IDX_form_submissions_lead" ON "form_submissions" ("lead_id") WHERE "lead_id" IS NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "form_submissions" ADD CONSTRAINT "FK_form_submissions_lead" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "form_submissions" DROP CONSTRAINT "FK_form_submissions_lead"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_form_submissions_lead"`);
  }
}
