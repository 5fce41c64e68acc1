import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A form's counters move from its row to `form_counters`, spread over up to 16 rows per
 * form (FormCounterShard): with one row, each submission's counter update held the form's
 * row lock through its commit's flush, so submissions to one form went one flush at a
 * time. Today's counts become slot 0.
 */
export class FormCounterShards1764700000000 implements MigrationInterface {
  name = 'FormCounterShards1764700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "form_counters" ("form_id" text NOT NULL, "slot" smallint NOT NULL, "submissions" integer NOT NULL DEFAULT 0, "spam" integer NOT NULL DEFAULT 0, "last_submission_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_form_counters" PRIMARY KEY ("form_id", "slot"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "form_counters" ADD CONSTRAINT "FK_form_counters_form" FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `INSERT INTO "form_counters" ("form_id", "slot", "submissions", "spam", "last_submission_at")
       SELECT "id", 0, "submission_count", "spam_count", "last_submission_at" FROM "forms"
       WHERE "submission_count" <> 0 OR "spam_count" <> 0 OR "last_submission_at" IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE "forms" DROP COLUMN "submission_count", DROP COLUMN "spam_count", DROP COLUMN "last_submission_at"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "forms" ADD "submission_count" integer NOT NULL DEFAULT 0, ADD "spam_count" integer NOT NULL DEFAULT 0, ADD "last_submission_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(
      `UPDATE "forms" f SET "submission_count" = GREATEST(c.submissions, 0), "spam_count" = GREATEST(c.spam, 0), "last_submission_at" = c.last
       FROM (SELECT "form_id", sum("submissions")::int AS submissions, sum("spam")::int AS spam, max("last_submission_at") AS last FROM "form_counters" GROUP BY "form_id") c
       WHERE f."id" = c."form_id"`,
    );
    await queryRunner.query(`DROP TABLE "form_counters"`);
  }
}
