import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Billing: customers, payment methods, subscriptions; deployments counted per
 * workspace and month; the distinct blobs counted towards each workspace's storage,
 * with a trigger that logs when a deployment leaves or enters that count.
 */
export class Billing1763770004000 implements MigrationInterface {
  name = 'Billing1763770004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "billing_customers" ("workspace_id" text NOT NULL, "provider" text NOT NULL, "customer_ref" text, "subscriptions_started" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_billing_customers_provider" CHECK ("provider" IN ('local', 'stripe')), CONSTRAINT "PK_billing_customers" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "payment_methods" ("id" text NOT NULL, "workspace_id" text NOT NULL, "provider" text NOT NULL, "provider_ref" text NOT NULL, "brand" text, "last4" text, "exp_month" integer, "exp_year" integer, "created_by" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_payment_methods_provider" CHECK ("provider" IN ('local', 'stripe')), CONSTRAINT "PK_payment_methods" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_payment_methods_workspace" ON "payment_methods"  ("workspace_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_payment_methods_workspace_ref" ON "payment_methods"  ("workspace_id", "provider", "provider_ref") `);
    await queryRunner.query(
      `CREATE TABLE "subscriptions" ("workspace_id" text NOT NULL, "provider" text NOT NULL, "provider_subscription_ref" text, "provider_item_ref" text, "tier" text NOT NULL, "interval" text NOT NULL, "status" text NOT NULL, "cancel_at_period_end" boolean NOT NULL DEFAULT false, "period_anchor" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "current_period_end" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_subscriptions_status" CHECK ("status" IN ('active', 'canceled')), CONSTRAINT "CHK_subscriptions_interval" CHECK ("interval" IN ('month', 'year')), CONSTRAINT "CHK_subscriptions_tier" CHECK ("tier" IN ('pro', 'team')), CONSTRAINT "CHK_subscriptions_provider" CHECK ("provider" IN ('local', 'stripe')), CONSTRAINT "PK_subscriptions" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_subscriptions_ending" ON "subscriptions"  ("current_period_end") WHERE "status" = 'active' AND "cancel_at_period_end"`,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_monthly_usage" ("workspace_id" text NOT NULL, "month" date NOT NULL, "deployments" integer NOT NULL DEFAULT '0', CONSTRAINT "CHK_workspace_monthly_usage_deployments" CHECK ("deployments" >= 0), CONSTRAINT "PK_workspace_monthly_usage" PRIMARY KEY ("workspace_id", "month"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_storage_blobs" ("workspace_id" text NOT NULL, "sha256" text NOT NULL, "size" bigint NOT NULL, CONSTRAINT "PK_workspace_storage_blobs" PRIMARY KEY ("workspace_id", "sha256"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_storage" ("workspace_id" text NOT NULL, "bytes" bigint NOT NULL, CONSTRAINT "PK_workspace_storage" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_storage_changes" ("id" BIGSERIAL NOT NULL, "workspace_id" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_workspace_storage_changes" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_workspace_storage_changes_workspace" ON "workspace_storage_changes"  ("workspace_id") `);
    await queryRunner.query(
      `ALTER TABLE "billing_customers" ADD CONSTRAINT "FK_billing_customers_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "payment_methods" ADD CONSTRAINT "FK_payment_methods_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscriptions" ADD CONSTRAINT "FK_subscriptions_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_monthly_usage" ADD CONSTRAINT "FK_workspace_monthly_usage_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_storage_blobs" ADD CONSTRAINT "FK_workspace_storage_blobs_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_storage" ADD CONSTRAINT "FK_workspace_storage_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Not an entity: TypeORM does not see triggers, so this is written by hand (QuotaService reads the log).
    await queryRunner.query(`CREATE FUNCTION "workspace_storage_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "workspace_storage_changes" ("workspace_id") VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD."workspace_id" ELSE NEW."workspace_id" END);
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "TRG_deployments_storage_status" AFTER UPDATE OF "status" ON "deployments" FOR EACH ROW WHEN ((OLD."status" IN ('live', 'archived')) IS DISTINCT FROM (NEW."status" IN ('live', 'archived'))) EXECUTE FUNCTION "workspace_storage_changed"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "TRG_deployments_storage_delete" AFTER DELETE ON "deployments" FOR EACH ROW WHEN (OLD."status" IN ('live', 'archived')) EXECUTE FUNCTION "workspace_storage_changed"()`,
    );
    // Deployments made before this migration count towards their month (rows of deleted projects are gone already).
    await queryRunner.query(
      `INSERT INTO "workspace_monthly_usage" ("workspace_id", "month", "deployments") SELECT "workspace_id", date_trunc('month', "created_at" AT TIME ZONE 'UTC')::date, count(*) FROM "deployments" GROUP BY 1, 2`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "TRG_deployments_storage_delete" ON "deployments"`);
    await queryRunner.query(`DROP TRIGGER "TRG_deployments_storage_status" ON "deployments"`);
    await queryRunner.query(`DROP FUNCTION "workspace_storage_changed"()`);
    await queryRunner.query(`ALTER TABLE "workspace_storage" DROP CONSTRAINT "FK_workspace_storage_workspace"`);
    await queryRunner.query(`ALTER TABLE "workspace_storage_blobs" DROP CONSTRAINT "FK_workspace_storage_blobs_workspace"`);
    await queryRunner.query(`ALTER TABLE "workspace_monthly_usage" DROP CONSTRAINT "FK_workspace_monthly_usage_workspace"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP CONSTRAINT "FK_subscriptions_workspace"`);
    await queryRunner.query(`ALTER TABLE "payment_methods" DROP CONSTRAINT "FK_payment_methods_workspace"`);
    await queryRunner.query(`ALTER TABLE "billing_customers" DROP CONSTRAINT "FK_billing_customers_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_workspace_storage_changes_workspace"`);
    await queryRunner.query(`DROP TABLE "workspace_storage_changes"`);
    await queryRunner.query(`DROP TABLE "workspace_storage"`);
    await queryRunner.query(`DROP TABLE "workspace_storage_blobs"`);
    await queryRunner.query(`DROP TABLE "workspace_monthly_usage"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_subscriptions_ending"`);
    await queryRunner.query(`DROP TABLE "subscriptions"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_payment_methods_workspace_ref"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_payment_methods_workspace"`);
    await queryRunner.query(`DROP TABLE "payment_methods"`);
    await queryRunner.query(`DROP TABLE "billing_customers"`);
  }
}
