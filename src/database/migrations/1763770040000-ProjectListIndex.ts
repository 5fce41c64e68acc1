import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The project list reads a workspace's newest projects by this index instead of
 * sorting every project of the workspace on each page (ProjectsRepository.page).
 * Ascending columns: the list's `created_at DESC, id DESC` is this index read
 * backwards, and TypeORM's entity metadata cannot declare a descending column.
 */
export class ProjectListIndex1763770040000 implements MigrationInterface {
  name = 'ProjectListIndex1763770040000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_projects_workspace_created" ON "projects" ("workspace_id", "created_at", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_projects_workspace_created"`);
  }
}
