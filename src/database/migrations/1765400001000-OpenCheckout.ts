import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The Checkout Session last handed out per workspace: a new Checkout closes it first, so
 * two open Checkouts (two tabs, or one left open for a day) cannot both be paid. Checkouts
 * opened before this runs are not known: they stay payable until Stripe expires them (24 h).
 * `checkouts_closed` joins the idempotency key, so a plan asked again after its session was
 * closed gets a new one rather than Stripe's replay of the closed one.
 */
export class OpenCheckout1765400001000 implements MigrationInterface {
  name = 'OpenCheckout1765400001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "billing_customers" ADD "open_checkout_ref" text`);
    await queryRunner.query(`ALTER TABLE "billing_customers" ADD "open_checkout_key" text`);
    await queryRunner.query(`ALTER TABLE "billing_customers" ADD "checkouts_closed" integer NOT NULL DEFAULT 0`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "billing_customers" DROP COLUMN "checkouts_closed"`);
    await queryRunner.query(`ALTER TABLE "billing_customers" DROP COLUMN "open_checkout_key"`);
    await queryRunner.query(`ALTER TABLE "billing_customers" DROP COLUMN "open_checkout_ref"`);
  }
}
