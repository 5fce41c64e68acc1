import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

import { User } from '../users/user.entity';

/**
 * One refresh token of a sign-in session. Every refresh rotates the token: the used
 * row gets `rotated_at` and a new row joins the same family. Presenting a rotated
 * token again means it leaked, so the whole family is revoked. The family's one
 * unrotated row is its head; access JWTs carry the family id and die with it.
 */
@Entity('refresh_tokens')
export class RefreshToken {
  @PrimaryColumn('uuid')
  id: string;

  @Index('IDX_refresh_tokens_family')
  @Column('uuid', { name: 'family_id' })
  familyId: string;

  @Index('IDX_refresh_tokens_user')
  @Column('text', { name: 'user_id' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_refresh_tokens_user' })
  user?: User;

  /** SHA-256 hex of the opaque token; the token itself is never stored. */
  @Index('UQ_refresh_tokens_token_hash', { unique: true })
  @Column('text', { name: 'token_hash' })
  tokenHash: string;

  @Column({ type: 'timestamptz', name: 'expires_at', precision: 3 })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'rotated_at', precision: 3, nullable: true })
  rotatedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'revoked_at', precision: 3, nullable: true })
  revokedAt: Date | null;
}
