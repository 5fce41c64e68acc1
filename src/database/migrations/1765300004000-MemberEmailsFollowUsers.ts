import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Memberships carry their person's current address (AccountRecoveryService.verifyEmail now
 * keeps them in step): rows written before kept the address of when they were accepted, so
 * an invitation of someone's new address to a workspace they were in passed the duplicate
 * check and failed on accepting, and an SSO sign-in as a freed old address failed to join.
 */
export class MemberEmailsFollowUsers1765300004000 implements MigrationInterface {
  name = 'MemberEmailsFollowUsers1765300004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // An invitation of a person's current address where they already are a member is theirs already.
    await queryRunner.query(
      `DELETE FROM "workspace_members" i USING "users" u, "workspace_members" a
        WHERE i."status" = 'invited' AND i."email" = u."email" AND a."user_id" = u."id" AND a."workspace_id" = i."workspace_id" AND a."id" <> i."id"`,
    );
    // Two passes: a unique index is checked row by row, and two members may have swapped
    // addresses (or one took the other's old one), so every stale row first takes a placeholder
    // of its own (lower case, as the column's check wants) and then its person's address.
    await queryRunner.query(
      `UPDATE "workspace_members" m SET "email" = lower('~' || m."id") FROM "users" u WHERE m."user_id" = u."id" AND m."email" <> u."email"`,
    );
    await queryRunner.query(
      `UPDATE "workspace_members" m SET "email" = u."email" FROM "users" u WHERE m."user_id" = u."id" AND m."email" = lower('~' || m."id")`,
    );
  }

  public async down(): Promise<void> {
    // Nothing to undo: the addresses were stale.
  }
}
