import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { BIGINT_NUMBER, ReferenceColumn, TimestampColumn } from '../database/columns';

export const AUDIT_ACTOR_TYPES = ['user', 'token', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * One entry of a workspace's audit log (issue 32), written in the transaction of the
 * change it records. `hash` covers the entry and `prevHash` (the hash of the workspace's
 * entry before it, `seq - 1`): a chain that an edited, removed or reordered row breaks.
 * Both are computed by the database function `audit_entry_hash` (migration AuditLog), on
 * write and on verify, so the two can never disagree on how an entry is serialised.
 *
 * No foreign key to `workspaces`: the log outlives what it records, a deleted workspace's
 * included, until AUDIT_RETENTION_DAYS removes it ("who deleted it" is asked afterwards).
 */
@Entity('audit_log')
@Index('UQ_audit_log_workspace_seq', ['workspaceId', 'seq'], { unique: true })
@Index('IDX_audit_log_workspace_at', ['workspaceId', 'at'])
// The retention job's cut-off (AUDIT_RETENTION_DAYS), across workspaces.
@Index('IDX_audit_log_at', ['at'])
@Check('CHK_audit_log_actor_type', `"actor_type" IN ('user', 'token', 'system')`)
export class AuditEntry {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_audit_log' })
  id: string;

  @ReferenceColumn('workspace_id')
  workspaceId: string;

  /** 1, 2, 3… per workspace, without gaps. */
  @Column('bigint', { transformer: BIGINT_NUMBER })
  seq: number;

  @TimestampColumn('at')
  at: Date;

  @Column('text', { name: 'actor_type' })
  actorType: AuditActorType;

  /** `usr_…` or `tok_…`; null for the system. */
  @Column('text', { name: 'actor_id', nullable: true })
  actorId: string | null;

  /** The user's email or the token's name at the time; what the system was doing. */
  @Column('text', { name: 'actor_label' })
  actorLabel: string;

  /** `<target type>.<verb>`, e.g. `project.deleted`. */
  @Column('text')
  action: string;

  @Column('text', { name: 'target_type', nullable: true })
  targetType: string | null;

  @Column('text', { name: 'target_id', nullable: true })
  targetId: string | null;

  @Column('text', { name: 'target_label', nullable: true })
  targetLabel: string | null;

  /** The client's network (IPv4 /24, IPv6 /48), never its address. */
  @Column('text', { nullable: true })
  ip: string | null;

  /** The browser or client family only (`Chrome`, `curl`…), never the whole user agent. */
  @Column('text', { name: 'user_agent', nullable: true })
  userAgent: string | null;

  @Column('text', { name: 'request_id', nullable: true })
  requestId: string | null;

  /** The names of the fields the change set; never their values. */
  @Column('jsonb', { default: () => `'[]'` })
  changes: string[];

  @Column('text', { name: 'prev_hash' })
  prevHash: string;

  @Column('text')
  hash: string;
}

/**
 * The end of each workspace's chain: the row every audited write of a workspace updates,
 * so concurrent writers of one workspace take turns (its row lock) and get consecutive
 * `seq` and a correct `prevHash` without reading the log.
 */
@Entity('audit_heads')
export class AuditHead {
  @PrimaryColumn('text', { name: 'workspace_id', primaryKeyConstraintName: 'PK_audit_heads' })
  workspaceId: string;

  @Column('bigint', { transformer: BIGINT_NUMBER })
  seq: number;

  /** The hash of entry `seq`. */
  @Column('text', { name: 'last_hash' })
  lastHash: string;

  /** The hash of entry `seq - 1` (what entry `seq` chains to). */
  @Column('text', { name: 'prev_hash' })
  prevHash: string;

  /**
   * The last entry retention removed (AUDIT_RETENTION_DAYS), 0 when none: the chain is
   * verified from `prunedSeq + 1`, whose `prev_hash` must be `prunedHash`. Without it a
   * removed beginning would look like a broken chain, or go unnoticed.
   */
  @Column('bigint', { name: 'pruned_seq', default: 0, transformer: BIGINT_NUMBER })
  prunedSeq: number;

  @Column('text', { name: 'pruned_hash', default: '' })
  prunedHash: string;
}
