import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issue 32: single sign-on over OIDC. A workspace's provider (its client secret sealed),
 * the email domains it claims (a domain verified by one workspace at most), and the
 * sign-ins under way at a provider (single use, found by their state's hash).
 */
export class Sso1764500003000 implements MigrationInterface {
  name = 'Sso1764500003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sso_connections" ("workspace_id" text NOT NULL, "issuer" text NOT NULL, "client_id" text NOT NULL, "secret_key_id" text NOT NULL, "secret_nonce" bytea NOT NULL, "secret_ciphertext" bytea NOT NULL, "default_role" text NOT NULL, "enforce" boolean NOT NULL DEFAULT false, "enforced_by" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_sso_connections_default_role" CHECK ("default_role" IN ('admin', 'viewer')), CONSTRAINT "PK_sso_connections" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "sso_domains" ("workspace_id" text NOT NULL, "domain" text NOT NULL, "token" text NOT NULL, "verified_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_sso_domains" PRIMARY KEY ("workspace_id", "domain"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_sso_domains_verified" ON "sso_domains" ("domain") WHERE "verified_at" IS NOT NULL`);
    await queryRunner.query(
      `CREATE TABLE "sso_logins" ("state_hash" text NOT NULL, "workspace_id" text NOT NULL, "code_verifier" text NOT NULL, "nonce" text NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_sso_logins" PRIMARY KEY ("state_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_sso_logins_expires" ON "sso_logins" ("expires_at") `);
    await queryRunner.query(
      `ALTER TABLE "sso_connections" ADD CONSTRAINT "FK_sso_connections_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_domains" ADD CONSTRAINT "FK_sso_domains_connection" FOREIGN KEY ("workspace_id") REFERENCES "sso_connections"("workspace_id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_logins" ADD CONSTRAINT "FK_sso_logins_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sso_logins" DROP CONSTRAINT "FK_sso_logins_workspace"`);
    await queryRunner.query(`ALTER TABLE "sso_domains" DROP CONSTRAINT "FK_sso_domains_connection"`);
    await queryRunner.query(`ALTER TABLE "sso_connections" DROP CONSTRAINT "FK_sso_connections_workspace"`);
    await queryRunner.query(`DROP TABLE "sso_logins"`);
    await queryRunner.query(`DROP TABLE "sso_domains"`);
    await queryRunner.query(`DROP TABLE "sso_connections"`);
  }
}
