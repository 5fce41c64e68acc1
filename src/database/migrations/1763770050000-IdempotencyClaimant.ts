import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The instance that claimed an Idempotency-Key (its InstanceLease id): a retry takes
 * over a key whose claimant is gone at once, instead of after the 5-minute timeout.
 * Null for claims made without a lease (and those from before this column).
 */
export class IdempotencyClaimant1763770050000 implements MigrationInterface {
  name = 'IdempotencyClaimant1763770050000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "claimed_by" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "claimed_by"`);
  }
}
