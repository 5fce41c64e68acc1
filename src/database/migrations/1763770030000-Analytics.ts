import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Site analytics (src/analytics): hourly and daily rollups, a HyperLogLog sketch of
 * visitors per project and day, and the day's visitor-hash key. No column holds an
 * address or a user agent.
 */
export class Analytics1763770030000 implements MigrationInterface {
  name = 'Analytics1763770030000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "analytics_hourly" ("project_id" text NOT NULL, "hour" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "kind" text NOT NULL, "key" text NOT NULL, "status_class" smallint NOT NULL, "requests" bigint NOT NULL, "page_views" bigint NOT NULL, "bot_requests" bigint NOT NULL, "bytes" bigint NOT NULL, CONSTRAINT "CHK_analytics_hourly_kind" CHECK ("kind" IN ('path', 'total', 'page', 'referrer', 'not_found', 'gate')), CONSTRAINT "PK_analytics_hourly" PRIMARY KEY ("project_id", "kind", "hour", "key", "status_class"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_analytics_hourly_hour" ON "analytics_hourly" ("hour") `);
    await queryRunner.query(
      `CREATE TABLE "analytics_daily" ("project_id" text NOT NULL, "day" date NOT NULL, "kind" text NOT NULL, "key" text NOT NULL, "status_class" smallint NOT NULL, "requests" bigint NOT NULL, "page_views" bigint NOT NULL, "bot_requests" bigint NOT NULL, "bytes" bigint NOT NULL, CONSTRAINT "CHK_analytics_daily_kind" CHECK ("kind" IN ('path', 'total', 'page', 'referrer', 'not_found', 'gate')), CONSTRAINT "PK_analytics_daily" PRIMARY KEY ("project_id", "kind", "day", "key", "status_class"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "analytics_visitors" ("project_id" text NOT NULL, "day" date NOT NULL, "sketch" bytea NOT NULL, CONSTRAINT "PK_analytics_visitors" PRIMARY KEY ("project_id", "day"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "analytics_secrets" ("day" date NOT NULL, "secret" bytea NOT NULL, CONSTRAINT "PK_analytics_secrets" PRIMARY KEY ("day"))`,
    );
    for (const table of ['analytics_hourly', 'analytics_daily', 'analytics_visitors']) {
      await queryRunner.query(
        `ALTER TABLE "${table}" ADD CONSTRAINT "FK_${table}_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "analytics_secrets"`);
    await queryRunner.query(`DROP TABLE "analytics_visitors"`);
    await queryRunner.query(`DROP TABLE "analytics_daily"`);
    await queryRunner.query(`DROP TABLE "analytics_hourly"`);
  }
}
