import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A digest item goes with its project: deleting a project deletes its leads and
 * submissions, and a waiting item would still mail what the visitor typed. Items of
 * projects already deleted are removed first (they would break the key, and must not be
 * mailed either).
 */
export class DigestItemsProject1765200000000 implements MigrationInterface {
  name = 'DigestItemsProject1765200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // An instance of the previous version deleting a project between the DELETE and the
    // constraint would leave an orphan that fails it: project deletes wait for the migration.
    await queryRunner.query(`LOCK TABLE "projects", "notification_digest_items" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`DELETE FROM "notification_digest_items" i WHERE NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = i."project_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_notification_digest_items_project" ON "notification_digest_items" ("project_id") `);
    await queryRunner.query(
      `ALTER TABLE "notification_digest_items" ADD CONSTRAINT "FK_notification_digest_items_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "notification_digest_items" DROP CONSTRAINT "FK_notification_digest_items_project"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_notification_digest_items_project"`);
  }
}
