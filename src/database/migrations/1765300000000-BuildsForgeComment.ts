import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The id of the pull request comment a build posted (src/builds/feedback/forge-feedback.ts):
 * the next build of the pull request edits that comment by id instead of looking for one
 * by its text, which anyone on the pull request could have written. Nullable, no default:
 * adding it rewrites nothing.
 */
export class BuildsForgeComment1765300000000 implements MigrationInterface {
  name = 'BuildsForgeComment1765300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "builds" ADD "forge_comment_id" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "builds" DROP COLUMN "forge_comment_id"`);
  }
}
