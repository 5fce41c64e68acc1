import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Attempt counters of the site gates, in the layout rate-limiter-flexible's
 * RateLimiterPostgres uses (it is told the table exists, so it never creates it).
 */
export class GateRateLimits1763770002000 implements MigrationInterface {
  name = 'GateRateLimits1763770002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "gate_rate_limits" ("key" varchar(255) PRIMARY KEY, "points" integer NOT NULL DEFAULT 0, "expire" bigint)`);
    await queryRunner.query(`CREATE INDEX "IDX_gate_rate_limits_expire" ON "gate_rate_limits" ("expire")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gate_rate_limits"`);
  }
}
