import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 31: billing as a lifecycle. A subscription can be `past_due` (a renewal failed:
 * the plan stays for the grace days while Stripe retries); every Stripe event is
 * recorded once (`billing_events`, so a redelivery does nothing); invoices are mirrored
 * from the events; a dispute flags the customer; bandwidth is counted per workspace
 * and month beside deployments; the owner's spend cap; and the usage alerts move from
 * 80/100 % to 50/75/100 % of each metered limit, bandwidth and build minutes included.
 */
export class BillingLifecycle1764400000000 implements MigrationInterface {
  name = 'BillingLifecycle1764400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP CONSTRAINT "CHK_subscriptions_status"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD CONSTRAINT "CHK_subscriptions_status" CHECK ("status" IN ('active', 'past_due', 'canceled'))`);
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD "past_due_since" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "billing_customers" ADD "disputed_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE TABLE "billing_events" ("provider_event_id" text NOT NULL, "provider" text NOT NULL, "type" text NOT NULL, "workspace_id" text, "event_created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "received_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_billing_events_provider" CHECK ("provider" IN ('local', 'stripe')), CONSTRAINT "PK_billing_events" PRIMARY KEY ("provider_event_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_billing_events_workspace" ON "billing_events" ("workspace_id") `);
    await queryRunner.query(
      `ALTER TABLE "billing_events" ADD CONSTRAINT "FK_billing_events_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "billing_invoices" ("id" text NOT NULL, "workspace_id" text NOT NULL, "provider" text NOT NULL, "provider_ref" text NOT NULL, "number" text, "status" text NOT NULL, "amount_due" bigint NOT NULL, "amount_paid" bigint NOT NULL, "currency" text NOT NULL, "period_start" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "period_end" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "hosted_invoice_url" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_billing_invoices_provider" CHECK ("provider" IN ('local', 'stripe')), CONSTRAINT "CHK_billing_invoices_status" CHECK ("status" IN ('draft', 'open', 'paid', 'uncollectible', 'void')), CONSTRAINT "PK_billing_invoices" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_billing_invoices_provider_ref" ON "billing_invoices" ("provider", "provider_ref") `);
    await queryRunner.query(`CREATE INDEX "IDX_billing_invoices_workspace" ON "billing_invoices" ("workspace_id", "created_at") `);
    await queryRunner.query(
      `ALTER TABLE "billing_invoices" ADD CONSTRAINT "FK_billing_invoices_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" ADD "bandwidth_bytes" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" ADD CONSTRAINT "CHK_workspace_monthly_usage_bandwidth" CHECK ("bandwidth_bytes" >= 0)`);
    await queryRunner.query(
      `CREATE TABLE "workspace_spend_caps" ("workspace_id" text NOT NULL, "pause_sites_at_limit" boolean NOT NULL DEFAULT false, "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_workspace_spend_caps" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_spend_caps" ADD CONSTRAINT "FK_workspace_spend_caps_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // The 80 % rows were the old set's; the period they belong to now announces 50 and 75 instead.
    await queryRunner.query(`DELETE FROM "usage_thresholds" WHERE "percent" NOT IN (50, 75, 100)`);
    await queryRunner.query(`ALTER TABLE "usage_thresholds" DROP CONSTRAINT "CHK_usage_thresholds_percent"`);
    await queryRunner.query(`ALTER TABLE "usage_thresholds" ADD CONSTRAINT "CHK_usage_thresholds_percent" CHECK ("percent" IN (50, 75, 100))`);
    await queryRunner.query(`ALTER TABLE "usage_thresholds" DROP CONSTRAINT "CHK_usage_thresholds_metric"`);
    await queryRunner.query(
      `ALTER TABLE "usage_thresholds" ADD CONSTRAINT "CHK_usage_thresholds_metric" CHECK ("metric" IN ('deploymentsPerMonth', 'storageBytes', 'bandwidthBytesPerMonth', 'buildMinutesPerMonth'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "usage_thresholds" WHERE "percent" <> 100 OR "metric" NOT IN ('deploymentsPerMonth', 'storageBytes')`);
    await queryRunner.query(`ALTER TABLE "usage_thresholds" DROP CONSTRAINT "CHK_usage_thresholds_metric"`);
    await queryRunner.query(
      `ALTER TABLE "usage_thresholds" ADD CONSTRAINT "CHK_usage_thresholds_metric" CHECK ("metric" IN ('deploymentsPerMonth', 'storageBytes'))`,
    );
    await queryRunner.query(`ALTER TABLE "usage_thresholds" DROP CONSTRAINT "CHK_usage_thresholds_percent"`);
    await queryRunner.query(`ALTER TABLE "usage_thresholds" ADD CONSTRAINT "CHK_usage_thresholds_percent" CHECK ("percent" IN (80, 100))`);
    await queryRunner.query(`ALTER TABLE "workspace_spend_caps" DROP CONSTRAINT "FK_workspace_spend_caps_workspace"`);
    await queryRunner.query(`DROP TABLE "workspace_spend_caps"`);
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" DROP CONSTRAINT "CHK_workspace_monthly_usage_bandwidth"`);
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" DROP COLUMN "bandwidth_bytes"`);
    await queryRunner.query(`ALTER TABLE "billing_invoices" DROP CONSTRAINT "FK_billing_invoices_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_billing_invoices_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_billing_invoices_provider_ref"`);
    await queryRunner.query(`DROP TABLE "billing_invoices"`);
    await queryRunner.query(`ALTER TABLE "billing_events" DROP CONSTRAINT "FK_billing_events_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_billing_events_workspace"`);
    await queryRunner.query(`DROP TABLE "billing_events"`);
    await queryRunner.query(`ALTER TABLE "billing_customers" DROP COLUMN "disputed_at"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "past_due_since"`);
    await queryRunner.query(`UPDATE "subscriptions" SET "status" = 'active' WHERE "status" = 'past_due'`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP CONSTRAINT "CHK_subscriptions_status"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD CONSTRAINT "CHK_subscriptions_status" CHECK ("status" IN ('active', 'canceled'))`);
  }
}
