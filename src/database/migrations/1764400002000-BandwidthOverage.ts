import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 31, metering: what of each workspace's monthly bandwidth overage has been
 * reported to the payment provider, and the report in flight, so each byte over the
 * limit is reported once even across a crash or a retry.
 */
export class BandwidthOverage1764400002000 implements MigrationInterface {
  name = 'BandwidthOverage1764400002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" ADD "overage_reported_bytes" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" ADD "overage_pending_bytes" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" DROP COLUMN "overage_pending_bytes"`);
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" DROP COLUMN "overage_reported_bytes"`);
  }
}
