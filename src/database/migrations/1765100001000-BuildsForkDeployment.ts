import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which deployments a fork's pull request built: the site proxy asks before signing a
 * request with the project's variables (src/builds/build-proxy-secrets.ts). Partial, so it
 * holds only those builds.
 */
export class BuildsForkDeployment1765100001000 implements MigrationInterface {
  name = 'BuildsForkDeployment1765100001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_builds_fork_deployment" ON "builds" ("deployment_id") WHERE "fork"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_builds_fork_deployment"`);
  }
}
