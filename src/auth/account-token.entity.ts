import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

import type { Email } from '../users/email';
import { User } from '../users/user.entity';

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

  @Index('IDX_account_tokens_user')
  @Column('text', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_account_tokens_user' })
  user?: User;

  @Column('text')
  purpose: AccountTokenPurpose;

  /** The address the token was mailed to (for verify_email: the one it confirms). */
  @Column('text')
  email: Email;

  @Index('UQ_account_tokens_token_hash', { unique: true })
  @Column('text', { name: 'token_hash' })
  tokenHash: string;

  @Column({ type: 'timestamptz', name: 'expires_at', precision: 3 })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'used_at', precision: 3, nullable: true })
  usedAt: Date | null;
}
