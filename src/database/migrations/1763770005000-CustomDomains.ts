import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Verification state of custom domains (src/domains). */
export class CustomDomains1763770005000 implements MigrationInterface {
  name = 'CustomDomains1763770005000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "projects" ADD "domain_status" text`);
    await queryRunner.query(`ALTER TABLE "projects" ADD "domain_token" text`);
    await queryRunner.query(`ALTER TABLE "projects" ADD "domain_verified_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "projects" ADD "domain_checked_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "projects" ADD "domain_failing_since" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`CREATE INDEX "IDX_projects_domain_recheck" ON "projects"  ("domain_checked_at") WHERE "domain_status" = 'verified'`);
    // Names attached before verification existed start pending, each with a fresh token (32 hex digits, like newDomainToken()).
    await queryRunner.query(
      `UPDATE "projects" SET "domain_status" = 'pending', "domain_token" = replace(gen_random_uuid()::text, '-', '') WHERE "custom_domain" IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "projects" ADD CONSTRAINT "CHK_projects_domain_state" CHECK (("custom_domain" IS NULL) = ("domain_status" IS NULL) AND ("custom_domain" IS NULL) = ("domain_token" IS NULL))`,
    );
    await queryRunner.query(`ALTER TABLE "projects" ADD CONSTRAINT "CHK_projects_domain_status" CHECK ("domain_status" IN ('pending', 'verified', 'failed'))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "projects" DROP CONSTRAINT "CHK_projects_domain_status"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP CONSTRAINT "CHK_projects_domain_state"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_projects_domain_recheck"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "domain_failing_since"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "domain_checked_at"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "domain_verified_at"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "domain_token"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "domain_status"`);
  }
}
