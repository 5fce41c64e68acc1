import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, ReferenceColumn, TimestampColumn, TokenHashColumn } from '../../database/columns';
import type { Email } from '../../shared/email';
import { User } from '../../users/user.entity';

export type AccountTokenPurpose = 'verify_email' | 'password_reset';

/**
 * A single-use token mailed to a person: confirming an address (at registration or
 * for a change of address, `email` says which) or resetting a password. Only its
 * SHA-256 is stored; `used_at` makes it single use.
 */
@Entity('account_tokens')
@Check('CHK_account_tokens_purpose', `"purpose" IN ('verify_email', 'password_reset')`)
export class AccountToken {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_account_tokens' })
  id: string;

  @ReferenceColumn('user_id', { index: 'IDX_account_tokens_user' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_account_tokens_user')
  user?: User;

  @Column('text')
  purpose: AccountTokenPurpose;

  /** The address the token was mailed to (for verify_email: the one it confirms). */
  @Column('text')
  email: Email;

  @TokenHashColumn('UQ_account_tokens_token_hash')
  tokenHash: string;

  @TimestampColumn('expires_at')
  expiresAt: Date;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn('used_at', { nullable: true })
  usedAt: Date | null;
}
