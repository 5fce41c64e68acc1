import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Mail notifications (issue 30): each person's opt-ins per workspace, and the new leads and
 * form submissions waiting for their digest (what the visitor typed sealed with the leads keyring).
 */
export class Notifications1764300002000 implements MigrationInterface {
  name = 'Notifications1764300002000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "notification_preferences" ("user_id" text NOT NULL, "workspace_id" text NOT NULL, "build_failed" boolean NOT NULL DEFAULT false, "domain_failed" boolean NOT NULL DEFAULT false, "digest" text NOT NULL DEFAULT 'off', "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_notification_preferences_digest" CHECK ("digest" IN ('off', 'immediate', 'daily')), CONSTRAINT "PK_notification_preferences" PRIMARY KEY ("user_id", "workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "notification_digest_items" ("id" uuid NOT NULL, "user_id" text NOT NULL, "workspace_id" text NOT NULL, "kind" text NOT NULL, "project_id" text NOT NULL, "project_slug" text NOT NULL, "ref_id" text NOT NULL, "form_name" text, "key_id" text NOT NULL, "nonce" bytea NOT NULL, "ciphertext" bytea NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "CHK_notification_digest_items_nonce_length" CHECK (octet_length("nonce") = 12), CONSTRAINT "CHK_notification_digest_items_kind" CHECK ("kind" IN ('lead', 'form')), CONSTRAINT "PK_notification_digest_items" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_notification_digest_items_recipient" ON "notification_digest_items" ("user_id", "workspace_id", "created_at") `);
    await queryRunner.query(
      `ALTER TABLE "notification_preferences" ADD CONSTRAINT "FK_notification_preferences_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_preferences" ADD CONSTRAINT "FK_notification_preferences_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_digest_items" ADD CONSTRAINT "FK_notification_digest_items_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "notification_digest_items" DROP CONSTRAINT "FK_notification_digest_items_user"`);
    await queryRunner.query(`ALTER TABLE "notification_preferences" DROP CONSTRAINT "FK_notification_preferences_workspace"`);
    await queryRunner.query(`ALTER TABLE "notification_preferences" DROP CONSTRAINT "FK_notification_preferences_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_notification_digest_items_recipient"`);
    await queryRunner.query(`DROP TABLE "notification_digest_items"`);
    await queryRunner.query(`DROP TABLE "notification_preferences"`);
  }
}
