import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 30 review: a delivery that carries a lead's email or a submission's fields (an
 * endpoint with includePersonalData) names that lead or submission, so erasing it erases
 * the delivery record too.
 */
export class WebhookDeliverySubject1764300004000 implements MigrationInterface {
  name = 'WebhookDeliverySubject1764300004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "subject_id" text`);
    await queryRunner.query(`CREATE INDEX "IDX_webhook_deliveries_subject" ON "webhook_deliveries" ("subject_id") WHERE "subject_id" IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_webhook_deliveries_subject"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "subject_id"`);
  }
}
