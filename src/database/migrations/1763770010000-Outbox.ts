import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The transactional outbox: messages (webhook calls) written with the change they report. */
export class Outbox1763770010000 implements MigrationInterface {
  name = 'Outbox1763770010000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "outbox_messages" ("id" text NOT NULL, "kind" text NOT NULL, "payload" jsonb NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "delivered_at" TIMESTAMP(3) WITH TIME ZONE, "dead_at" TIMESTAMP(3) WITH TIME ZONE, "last_error" text, CONSTRAINT "PK_outbox_messages" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_outbox_messages_due" ON "outbox_messages" ("next_attempt_at") WHERE "delivered_at" IS NULL AND "dead_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_outbox_messages_due"`);
    await queryRunner.query(`DROP TABLE "outbox_messages"`);
  }
}
