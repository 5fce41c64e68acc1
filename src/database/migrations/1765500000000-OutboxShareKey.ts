import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Whose sending time a queued message spends (a webhook delivery's workspace): a kind that
 * asks for it (OutboxKindOptions.fairShare) sends the due messages of different keys in
 * turns, so one workspace's thousands of deliveries to a slow endpoint no longer fill every
 * round before anyone else's. Nullable and without a default: the kinds that do not ask
 * have none, and so do webhook deliveries an instance of the previous version queues
 * during a rolling upgrade (all of those share one key's turns until they are sent). The
 * deliveries already waiting get their workspace here, so the backlog of the moment of the
 * upgrade is not one key either.
 */
export class OutboxShareKey1765500000000 implements MigrationInterface {
  name = 'OutboxShareKey1765500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_messages" ADD "share_key" text`);
    await queryRunner.query(
      `UPDATE "outbox_messages" o SET "share_key" = d."workspace_id" FROM "webhook_deliveries" d
        WHERE d."outbox_message_id" = o."id" AND o."kind" = 'webhook' AND o."delivered_at" IS NULL AND o."dead_at" IS NULL`,
    );
    // The fair kinds' walk of keys and each key's oldest due messages (OutboxRepository.dueInTurns).
    await queryRunner.query(
      `CREATE INDEX "IDX_outbox_messages_turns" ON "outbox_messages" ("kind", "share_key", "next_attempt_at", "created_at") WHERE "delivered_at" IS NULL AND "dead_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_outbox_messages_turns"`);
    await queryRunner.query(`ALTER TABLE "outbox_messages" DROP COLUMN "share_key"`);
  }
}
