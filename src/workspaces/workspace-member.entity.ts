import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

import type { Role } from '../auth/principal';
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

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'FK_workspace_members_workspace' })
  workspace?: Workspace;

  /** Null until the invited person accepts. */
  @Index('IDX_workspace_members_user')
  @Column('text', { name: 'user_id', nullable: true })
  userId: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_workspace_members_user' })
  user?: User | null;

  /** Lowercased; how an invitation finds its person. */
  @Index('IDX_workspace_members_email')
  @Column('text')
  email: string;

  @Column('text')
  role: Role;

  @Column('text')
  status: MemberStatus;

  @Column({ type: 'timestamptz', name: 'invited_at', precision: 3, default: () => 'now()' })
  invitedAt: Date;

  @Column({ type: 'timestamptz', name: 'joined_at', precision: 3, nullable: true })
  joinedAt: Date | null;
}
