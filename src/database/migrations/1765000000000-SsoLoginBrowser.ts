import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A pending SSO sign-in is bound to the browser that started it: the SHA-256 of a random
 * value the start sets in that browser's cookie, which the callback must carry (login
 * CSRF). Sign-ins under way when this runs are dropped rather than given a value: no
 * browser holds a cookie for them, so their callbacks would be refused anyway, and the
 * person starts again (they last 10 minutes at most).
 */
export class SsoLoginBrowser1765000000000 implements MigrationInterface {
  name = 'SsoLoginBrowser1765000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "sso_logins"`);
    await queryRunner.query(`ALTER TABLE "sso_logins" ADD "browser_hash" text NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sso_logins" DROP COLUMN "browser_hash"`);
  }
}
