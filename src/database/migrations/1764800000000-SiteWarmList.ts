import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The hosts an instance served most recently (issue 35's warm start): written by each
 * instance about once a minute, read once at start-up, so a restarted instance loads
 * those sites before their visitors ask. Unlogged: after a crash of PostgreSQL the list
 * starts empty, and the sites load on their first request as they did before it existed.
 */
export class SiteWarmList1764800000000 implements MigrationInterface {
  name = 'SiteWarmList1764800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE UNLOGGED TABLE "site_warm_list" ("host_key" text PRIMARY KEY, "served_at" timestamptz NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "IDX_site_warm_list_served_at" ON "site_warm_list" ("served_at" DESC)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "site_warm_list"`);
  }
}
