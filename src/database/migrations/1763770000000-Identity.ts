import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Identity and access: users, workspaces and their members, API tokens, refresh
 * tokens. `access_tokens.project_id` gets its foreign key in the projects migration.
 */
export class Identity1763770000000 implements MigrationInterface {
  name = 'Identity1763770000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "users" ("id" text NOT NULL, "email" text NOT NULL, "name" text NOT NULL, "password_hash" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_users_email_lowercase" CHECK ("email" = lower("email")), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_users_email" ON "users"  ("email")`);
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" text NOT NULL, "name" text NOT NULL, "plan" text NOT NULL DEFAULT 'free', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_workspaces_plan" CHECK ("plan" IN ('free', 'pro', 'team')), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "access_tokens" ("id" text NOT NULL, "workspace_id" text NOT NULL, "project_id" text, "name" text NOT NULL, "token_hash" text NOT NULL, "prefix" text NOT NULL, "scopes" text array NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE, "last_used_at" TIMESTAMP(3) WITH TIME ZONE, "created_by" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "CHK_access_tokens_scopes" CHECK (cardinality("scopes") > 0 AND "scopes" <@ ARRAY['deploy', 'read', 'delete', 'admin']::text[]), CONSTRAINT "PK_65140f59763ff994a0252488166" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_access_tokens_workspace" ON "access_tokens"  ("workspace_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_access_tokens_project" ON "access_tokens"  ("project_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_access_tokens_token_hash" ON "access_tokens"  ("token_hash")`);
    await queryRunner.query(`CREATE INDEX "IDX_access_tokens_created_by" ON "access_tokens"  ("created_by")`);
    await queryRunner.query(
      `CREATE TABLE "refresh_tokens" ("id" uuid NOT NULL, "family_id" uuid NOT NULL, "user_id" text NOT NULL, "token_hash" text NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "rotated_at" TIMESTAMP(3) WITH TIME ZONE, "revoked_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_7d8bee0204106019488c4c50ffa" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_refresh_tokens_family" ON "refresh_tokens"  ("family_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_refresh_tokens_user" ON "refresh_tokens"  ("user_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_refresh_tokens_token_hash" ON "refresh_tokens"  ("token_hash")`);
    await queryRunner.query(
      `CREATE TABLE "workspace_members" ("id" text NOT NULL, "workspace_id" text NOT NULL, "user_id" text, "email" text NOT NULL, "role" text NOT NULL, "status" text NOT NULL, "invited_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "joined_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "CHK_workspace_members_email_lowercase" CHECK ("email" = lower("email")), CONSTRAINT "CHK_workspace_members_joined" CHECK ("status" = 'invited' OR ("user_id" IS NOT NULL AND "joined_at" IS NOT NULL)), CONSTRAINT "CHK_workspace_members_status" CHECK ("status" IN ('invited', 'active')), CONSTRAINT "CHK_workspace_members_role" CHECK ("role" IN ('owner', 'admin', 'viewer')), CONSTRAINT "PK_22ab43ac5865cd62769121d2bc4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_workspace_members_user" ON "workspace_members"  ("user_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_workspace_members_email" ON "workspace_members"  ("email")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_workspace_members_workspace_user" ON "workspace_members"  ("workspace_id", "user_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_workspace_members_workspace_email" ON "workspace_members"  ("workspace_id", "email")`);
    await queryRunner.query(
      `ALTER TABLE "access_tokens" ADD CONSTRAINT "FK_access_tokens_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "access_tokens" ADD CONSTRAINT "FK_access_tokens_created_by" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "refresh_tokens" ADD CONSTRAINT "FK_refresh_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_members" ADD CONSTRAINT "FK_workspace_members_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_members" ADD CONSTRAINT "FK_workspace_members_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspace_members" DROP CONSTRAINT "FK_workspace_members_user"`);
    await queryRunner.query(`ALTER TABLE "workspace_members" DROP CONSTRAINT "FK_workspace_members_workspace"`);
    await queryRunner.query(`ALTER TABLE "refresh_tokens" DROP CONSTRAINT "FK_refresh_tokens_user"`);
    await queryRunner.query(`ALTER TABLE "access_tokens" DROP CONSTRAINT "FK_access_tokens_created_by"`);
    await queryRunner.query(`ALTER TABLE "access_tokens" DROP CONSTRAINT "FK_access_tokens_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_workspace_members_workspace_email"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_workspace_members_workspace_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_workspace_members_email"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_workspace_members_user"`);
    await queryRunner.query(`DROP TABLE "workspace_members"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_refresh_tokens_token_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_refresh_tokens_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_refresh_tokens_family"`);
    await queryRunner.query(`DROP TABLE "refresh_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_access_tokens_created_by"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_access_tokens_token_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_access_tokens_project"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_access_tokens_workspace"`);
    await queryRunner.query(`DROP TABLE "access_tokens"`);
    await queryRunner.query(`DROP TABLE "workspaces"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_users_email"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
