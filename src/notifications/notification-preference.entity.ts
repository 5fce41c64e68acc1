import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, UpdatedAtColumn } from '../database/columns';
import { User } from '../users/user.entity';
import { Workspace } from '../workspaces/workspace.entity';

export const DIGEST_MODES = ['off', 'immediate', 'daily'] as const;
export type DigestMode = (typeof DIGEST_MODES)[number];

/**
 * One person's mail notifications for one workspace (issue 30). Opt-in: no row means
 * everything off. Leaving the workspace does not delete it (the recipients query joins
 * the active membership), so rejoining finds the choices as they were.
 */
@Entity('notification_preferences')
@Check('CHK_notification_preferences_digest', `"digest" IN ('off', 'immediate', 'daily')`)
export class NotificationPreference {
  @PrimaryColumn('text', { name: 'user_id', primaryKeyConstraintName: 'PK_notification_preferences' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_notification_preferences_user')
  user?: User;

  @PrimaryColumn('text', { name: 'workspace_id', primaryKeyConstraintName: 'PK_notification_preferences' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_notification_preferences_workspace')
  workspace?: Workspace;

  /** A build of a project's production branch failed. */
  @Column('boolean', { name: 'build_failed', default: false })
  buildFailed: boolean;

  /** A custom domain stopped verifying (or gave up before it ever did). */
  @Column('boolean', { name: 'domain_failed', default: false })
  domainFailed: boolean;

  /** New leads and form submissions: not at all, batched within minutes, or once a day. */
  @Column('text', { default: 'off' })
  digest: DigestMode;

  @UpdatedAtColumn()
  updatedAt: Date;
}
