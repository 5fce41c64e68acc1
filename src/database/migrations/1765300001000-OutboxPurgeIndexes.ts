import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The outbox's purge runs every round (OUTBOX_INTERVAL_SECONDS): delivered messages after a
 * day, dead ones after 30 days (they were never purged). Each reads only the old rows of its
 * own partial index instead of scanning the table.
 */
export class OutboxPurgeIndexes1765300001000 implements MigrationInterface {
  name = 'OutboxPurgeIndexes1765300001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_outbox_messages_delivered" ON "outbox_messages" ("delivered_at") WHERE "delivered_at" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "IDX_outbox_messages_dead" ON "outbox_messages" ("dead_at") WHERE "dead_at" IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_outbox_messages_dead"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_outbox_messages_delivered"`);
  }
}
