import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * When a session's person last proved who they are (a sign-in, or POST /auth/reauthenticate):
 * changing the account's email, passkeys or TOTP needs it recent, so a stolen session alone
 * cannot take the account over. Existing sessions take their start, which is their sign-in.
 */
export class SessionAuthenticatedAt1765400000000 implements MigrationInterface {
  name = 'SessionAuthenticatedAt1765400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // The default serves an instance of the previous version during a rolling upgrade: the
    // sessions it starts are sign-ins, so now. Existing rows take their start instead.
    await queryRunner.query(`ALTER TABLE "auth_sessions" ADD "authenticated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now()`);
    await queryRunner.query(`UPDATE "auth_sessions" SET "authenticated_at" = "created_at"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "auth_sessions" DROP COLUMN "authenticated_at"`);
  }
}
