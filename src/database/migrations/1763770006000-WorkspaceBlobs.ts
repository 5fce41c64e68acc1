import { type MigrationInterface, type QueryRunner } from 'typeorm';

import { addCascadeForeignKeys, type CascadeForeignKey, dropForeignKeys } from './foreign-keys';

const FOREIGN_KEYS: CascadeForeignKey[] = [
  { table: 'workspace_blobs', name: 'FK_workspace_blobs_workspace', column: 'workspace_id', references: 'workspaces' },
  { table: 'workspace_blobs', name: 'FK_workspace_blobs_blob', column: 'sha256', references: 'blobs', referencedColumn: 'sha256' },
];

/** Which workspace uploaded which blob (PUT /v1/blobs), for digest-only deploys. */
export class WorkspaceBlobs1763770006000 implements MigrationInterface {
  name = 'WorkspaceBlobs1763770006000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workspace_blobs" ("workspace_id" text NOT NULL, "sha256" text NOT NULL, "size" bigint NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_workspace_blobs" PRIMARY KEY ("workspace_id", "sha256"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_workspace_blobs_sha256" ON "workspace_blobs"  ("sha256") `);
    await addCascadeForeignKeys(queryRunner, FOREIGN_KEYS);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await dropForeignKeys(queryRunner, FOREIGN_KEYS);
    await queryRunner.query(`DROP INDEX "public"."IDX_workspace_blobs_sha256"`);
    await queryRunner.query(`DROP TABLE "workspace_blobs"`);
  }
}
