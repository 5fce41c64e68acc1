import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, ReferenceColumn, TimestampColumn } from '../database/columns';
import type { Role } from '../shared/principal';
import { User } from '../users/user.entity';
import { Workspace } from './workspace.entity';

export const MEMBER_STATUSES = ['invited', 'active'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/**
 * A person's place in a workspace. An invitation is a member row in status
 * `invited`, matched to its person by email; accepting it sets `user_id` and makes
 * it `active`. Only active members act in the workspace.
 */
@Entity('workspace_members')
@Index('UQ_workspace_members_workspace_email', ['workspaceId', 'email'], { unique: true })
@Index('UQ_workspace_members_workspace_user', ['workspaceId', 'userId'], { unique: true })
@Check('CHK_workspace_members_role', `"role" IN ('owner', 'admin', 'viewer')`)
@Check('CHK_workspace_members_status', `"status" IN ('invited', 'active')`)
@Check('CHK_workspace_members_joined', `"status" = 'invited' OR ("user_id" IS NOT NULL AND "joined_at" IS NOT NULL)`)
@Check('CHK_workspace_members_email_lowercase', `"email" = lower("email")`)
export class WorkspaceMember {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_workspace_members_workspace')
  workspace?: Workspace;

  /** Null until the invited person accepts. */
  @ReferenceColumn('user_id', { index: 'IDX_workspace_members_user', nullable: true })
  userId: string | null;

  @CascadeManyToOne(() => User, 'user_id', 'FK_workspace_members_user', { nullable: true })
  user?: User | null;

  /** Lowercased; how an invitation finds its person. */
  @Index('IDX_workspace_members_email')
  @Column('text')
  email: string;

  @Column('text')
  role: Role;

  @Column('text')
  status: MemberStatus;

  @TimestampColumn('invited_at', { default: () => 'now()' })
  invitedAt: Date;

  @TimestampColumn('joined_at', { nullable: true })
  joinedAt: Date | null;
}
