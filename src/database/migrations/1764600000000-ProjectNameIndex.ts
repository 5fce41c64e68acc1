import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The project list sorted by name (GET /projects?sort=name) reads a workspace's
 * projects in this index's order and stops at the page, instead of sorting them all
 * on each page. `lower(name)`: names sort as a reader expects, whatever their case.
 * Search (`ILIKE '%…%'`) has no index of its own: it filters the workspace's rows,
 * which IDX_projects_workspace_created already narrows to (docs/decisions.md).
 */
export class ProjectNameIndex1764600000000 implements MigrationInterface {
  name = 'ProjectNameIndex1764600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_projects_workspace_name" ON "projects" ("workspace_id", lower("name"), "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_projects_workspace_name"`);
  }
}
