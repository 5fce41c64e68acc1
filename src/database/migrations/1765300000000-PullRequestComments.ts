import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The pull request comment the builds keep up to date (src/builds/feedback/forge-feedback.ts),
 * by the id its creation returned: the next build edits that comment instead of looking for
 * one by its text, which anyone on the pull request could have written. Its own row per
 * pull request, not a column of the builds, which the retention sweep deletes.
 */
export class PullRequestComments1765300000000 implements MigrationInterface {
  name = 'PullRequestComments1765300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pull_request_comments" ("project_id" text NOT NULL, "pull_request" integer NOT NULL, "comment_id" bigint NOT NULL, "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_pull_request_comments" PRIMARY KEY ("project_id", "pull_request"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "pull_request_comments" ADD CONSTRAINT "FK_pull_request_comments_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pull_request_comments"`);
  }
}
