import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * When the provider read that a subscription's stored state came from began (database
 * time): a webhook applies its read only when it began no earlier, so two deliveries whose
 * reads cross cannot leave the older state behind. Null for rows no webhook wrote yet.
 */
export class SubscriptionProviderRead1765100000000 implements MigrationInterface {
  name = 'SubscriptionProviderRead1765100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD "provider_read_at" TIMESTAMP(3) WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "provider_read_at"`);
  }
}
