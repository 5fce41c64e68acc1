import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, ReferenceColumn, TimestampColumn, TokenHashColumn } from '../../database/columns';
import { User } from '../../users/user.entity';

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

  @ReferenceColumn('user_id', { index: 'IDX_refresh_tokens_user' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_refresh_tokens_user')
  user?: User;

  /** SHA-256 hex of the opaque token; the token itself is never stored. */
  @TokenHashColumn('UQ_refresh_tokens_token_hash')
  tokenHash: string;

  @TimestampColumn('expires_at')
  expiresAt: Date;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn('rotated_at', { nullable: true })
  rotatedAt: Date | null;

  @TimestampColumn('revoked_at', { nullable: true })
  revokedAt: Date | null;
}
