import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The throttles' counters (`gate_rate_limits`: login, recovery, gate passwords, form
 * posts) need no write-ahead log: a commit that touched only an unlogged table does not
 * wait for a flush to disk (2 ms here), and every throttled request commits one. What it
 * costs: after a crash of PostgreSQL (or a failover to a replica) the table starts empty,
 * so every throttle starts over, as a restarted Redis-backed limiter would. Decided in
 * docs/decisions.md ("Throttle counters are unlogged").
 */
export class RateLimitsUnlogged1764700001000 implements MigrationInterface {
  name = 'RateLimitsUnlogged1764700001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gate_rate_limits" SET UNLOGGED`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gate_rate_limits" SET LOGGED`);
  }
}
