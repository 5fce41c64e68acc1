import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Which workspace uploaded which blob (PUT /v1/blobs), for digest-only deploys. */
export class WorkspaceBlobs1763770006000 implements MigrationInterface {
  name = 'WorkspaceBlobs1763770006000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workspace_blobs" ("workspace_id" text NOT NULL, "sha256" text NOT NULL, "size" bigint NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_workspace_blobs" PRIMARY KEY ("workspace_id", "sha256"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_workspace_blobs_sha256" ON "workspace_blobs"  ("sha256") `);
    await queryRunner.query(
      `ALTER TABLE "workspace_blobs" ADD CONSTRAINT "FK_workspace_blobs_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_blobs" ADD CONSTRAINT "FK_workspace_blobs_blob" FOREIGN KEY ("sha256") REFERENCES "blobs"("sha256") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_blobs" DROP CONSTRAINT "FK_workspace_blobs_blob"`);
    await queryRunner.query(`ALTER TABLE "workspace_blobs" DROP CONSTRAINT "FK_workspace_blobs_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_workspace_blobs_sha256"`);
    await queryRunner.query(`DROP TABLE "workspace_blobs"`);
  }
}
