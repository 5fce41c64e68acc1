import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A custom domain is exclusive once verified, not from the moment it is attached: a pending
 * name proves nothing (no DNS record is needed to attach one), and holding it exclusively
 * let anyone keep a company's domain from its owner for ever. Several projects may now
 * wait on one name; the one whose token the domain's DNS publishes verifies it.
 */
export class CustomDomainVerifiedUnique1765300002000 implements MigrationInterface {
  name = 'CustomDomainVerifiedUnique1765300002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."UQ_projects_custom_domain"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_projects_custom_domain" ON "projects" ("custom_domain") WHERE "domain_status" = 'verified'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."UQ_projects_custom_domain"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_projects_custom_domain" ON "projects" ("custom_domain") WHERE "custom_domain" IS NOT NULL`);
  }
}
