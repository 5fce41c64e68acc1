import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 30: the usage thresholds (80 and 100 % of a metered limit) a workspace crossed
 * per month, so `usage.threshold` fires once per crossing per period.
 */
export class UsageThresholds1764300003000 implements MigrationInterface {
  name = 'UsageThresholds1764300003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "usage_thresholds" ("workspace_id" text NOT NULL, "metric" text NOT NULL, "period" date NOT NULL, "percent" integer NOT NULL, "crossed_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "CHK_usage_thresholds_percent" CHECK ("percent" IN (80, 100)), CONSTRAINT "CHK_usage_thresholds_metric" CHECK ("metric" IN ('deploymentsPerMonth', 'storageBytes')), CONSTRAINT "PK_usage_thresholds" PRIMARY KEY ("workspace_id", "metric", "period", "percent"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "usage_thresholds" ADD CONSTRAINT "FK_usage_thresholds_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "usage_thresholds" DROP CONSTRAINT "FK_usage_thresholds_workspace"`);
    await queryRunner.query(`DROP TABLE "usage_thresholds"`);
  }
}
