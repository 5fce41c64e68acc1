import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Overage is counted when the bytes are (the analytics flush), against the plan in force
 * then: it was worked out when reported, against the plan in force at that moment, so a
 * downgrade on the 1st billed the month before against the smaller plan's limit. Existing
 * months start from what was already reported (bytes past a limit not reported yet when
 * this runs are not billed: at most one report interval's worth).
 */
export class OverageAtCount1765300003000 implements MigrationInterface {
  name = 'OverageAtCount1765300003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" ADD "overage_bytes" bigint NOT NULL DEFAULT 0`);
    // A report in flight (pending) counts as counted: the reporter finishes it before sending more.
    await queryRunner.query(
      `UPDATE "workspace_monthly_usage" SET "overage_bytes" = greatest("overage_reported_bytes", coalesce("overage_pending_bytes", 0))
        WHERE "overage_reported_bytes" > 0 OR "overage_pending_bytes" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" DROP COLUMN "overage_bytes"`);
  }
}
