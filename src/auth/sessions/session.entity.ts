import { Column, Entity, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, ReferenceColumn, TimestampColumn } from '../../database/columns';
import { User } from '../../users/user.entity';

/**
 * What a person sees of one of their sign-in sessions (issue 32): the refresh-token family
 * `id` names, the client family and network it started from, and when it was last
 * refreshed. Whether it is still open is its family's head in `refresh_tokens`: this row
 * only describes it, so ending a session stays one update of its tokens.
 */
@Entity('auth_sessions')
export class AuthSession {
  /** The refresh-token family (`refresh_tokens.family_id`), also the access JWT's `sid`. */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_auth_sessions' })
  id: string;

  @ReferenceColumn('user_id', { index: 'IDX_auth_sessions_user' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_auth_sessions_user')
  user?: User;

  /** The client family (src/audit/user-agent-family.ts), never the whole user agent. */
  @Column('text', { nullable: true })
  device: string | null;

  /** The client's network (IPv4 /24, IPv6 /48), never its address. */
  @Column('text', { nullable: true })
  ip: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  /** The last sign-in or refresh of the session. */
  @TimestampColumn('last_used_at')
  lastUsedAt: Date;

  /**
   * When its person last proved who they are in it: the sign-in that started it, or a later
   * POST /auth/reauthenticate. A refresh does not move it, so a stolen refresh token cannot
   * make itself recent: the account's credentials change only within RECENT_SIGN_IN_MS of it.
   */
  @TimestampColumn('authenticated_at', { default: () => 'now()' })
  authenticatedAt: Date;
}
