import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Site rules (issue 34): the lines of a deployment's `_redirects` and `_headers` that
 * deployed but will never apply, kept on the deployment so every client can show them
 * later, not only the one that deployed.
 */
export class DeploymentRuleWarnings1764200000000 implements MigrationInterface {
  name = 'DeploymentRuleWarnings1764200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "deployments" ADD "rule_warnings" jsonb NOT NULL DEFAULT '[]'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "deployments" DROP COLUMN "rule_warnings"`);
  }
}
