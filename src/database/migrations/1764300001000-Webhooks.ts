import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Outgoing webhooks (issue 30): a workspace's endpoints, their sealed secrets, and one delivery row per event sent to each. */
export class Webhooks1764300001000 implements MigrationInterface {
  name = 'Webhooks1764300001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhooks" ("id" text NOT NULL, "workspace_id" text NOT NULL, "url" text NOT NULL, "description" text, "events" text array NOT NULL, "format" text NOT NULL, "include_personal_data" boolean NOT NULL DEFAULT false, "enabled" boolean NOT NULL DEFAULT true, "disabled_reason" text, "secret_key_id" text NOT NULL, "secret_nonce" bytea NOT NULL, "secret_ciphertext" bytea NOT NULL, "failing_since" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_webhooks_format" CHECK ("format" IN ('standard', 'slack')), CONSTRAINT "PK_webhooks" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_webhooks_workspace" ON "webhooks" ("workspace_id", "created_at") `);
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" text NOT NULL, "webhook_id" text NOT NULL, "workspace_id" text NOT NULL, "event_type" text NOT NULL, "body_key_id" text NOT NULL, "body_nonce" bytea NOT NULL, "body_ciphertext" bytea NOT NULL, "status" text NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "outbox_message_id" text NOT NULL, "response_status" integer, "response_body" text, "latency_ms" integer, "error" text, "last_attempt_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_webhook_deliveries_status" CHECK ("status" IN ('pending', 'succeeded', 'failed')), CONSTRAINT "PK_webhook_deliveries" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_webhook_deliveries_webhook_created" ON "webhook_deliveries" ("webhook_id", "created_at", "id") `);
    await queryRunner.query(
      `ALTER TABLE "webhooks" ADD CONSTRAINT "FK_webhooks_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_webhook_deliveries_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_webhook_deliveries_webhook"`);
    await queryRunner.query(`ALTER TABLE "webhooks" DROP CONSTRAINT "FK_webhooks_workspace"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
  }
}
