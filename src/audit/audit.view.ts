import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { iso } from '../common/time';
import { AUDIT_ACTOR_TYPES, type AuditActorType } from './audit.entities';
import type { AuditRow } from './audit.repository';
import type { ChainBreak } from './chain-check';

export class AuditActorView {
  @ApiProperty({ enum: AUDIT_ACTOR_TYPES })
  type: AuditActorType;

  @ApiProperty({ type: String, nullable: true, example: 'usr_0f3k2m9x7q1w5e8r4t6y2u0i', description: '`usr_…` or `tok_…`; null for the system' })
  id: string | null;

  @ApiProperty({ example: 'ann@example.com', description: "The user's email or the token's name when the entry was written; what the system was doing" })
  label: string;
}

export class AuditTargetView {
  @ApiProperty({ example: 'project' })
  type: string;

  @ApiProperty({ type: String, nullable: true, example: 'proj_0f3k2m9x7q1w5e8r4t6y2u0i' })
  id: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'marketing-site' })
  label: string | null;
}

export class AuditEntryView {
  @ApiProperty({ example: 'aud_0f3k2m9x7q1w5e8r4t6y2u0i' })
  id: string;

  @ApiProperty({ type: 'integer', description: "The entry's place in its workspace's chain: 1, 2, 3…" })
  seq: number;

  @ApiProperty({ example: '2026-11-27T10:15:30.123Z' })
  at: string;

  @ApiProperty({ example: 'ws_0f3k2m9x7q1w5e8r4t6y2u0i' })
  workspaceId: string;

  @ApiProperty({ type: AuditActorView })
  actor: AuditActorView;

  @ApiProperty({ example: 'project.deleted', description: '`<target type>.<past-tense verb>` (docs/audit-log.md)' })
  action: string;

  @ApiProperty({ type: AuditTargetView, nullable: true })
  target: AuditTargetView | null;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.0/24', description: "The client's network (IPv4 /24, IPv6 /48), never its address" })
  ip: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Chrome', description: "The client's family only" })
  userAgent: string | null;

  @ApiProperty({ type: String, nullable: true })
  requestId: string | null;

  @ApiProperty({ type: [String], example: ['name', 'gateType'], description: 'The names of the fields the change set, never their values' })
  changes: string[];
}

const CHAIN_BREAKS: readonly ChainBreak[] = ['hash_mismatch', 'prev_hash_mismatch', 'missing', 'head_mismatch'];

export class AuditChainBreakView {
  @ApiProperty({ type: 'integer', description: 'The place in the chain of the first entry that does not check out' })
  seq: number;

  @ApiProperty({ type: String, nullable: true, description: "The entry's id; null when it is missing" })
  id: string | null;

  @ApiProperty({
    enum: CHAIN_BREAKS,
    description:
      '`hash_mismatch`: the entry was changed after it was written; `prev_hash_mismatch`: it does not follow the entry before it (that one was replaced or removed); ' +
      '`missing`: no entry has this place; `head_mismatch`: the chain ends elsewhere than its recorded end (entries were added or removed at the end)',
  })
  reason: ChainBreak;
}

export class AuditVerifyView {
  @ApiProperty({ description: 'Whether every entry since retention last cut the chain checks out' })
  ok: boolean;

  @ApiProperty({ type: 'integer', description: 'Entries checked' })
  entries: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The hash of the workspace's newest entry: keep it outside the service to detect a rewrite of the whole chain",
  })
  headHash: string | null;

  @ApiPropertyOptional({ type: AuditChainBreakView, nullable: true })
  firstBroken: AuditChainBreakView | null;
}

export function auditEntryView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    seq: Number(row.seq),
    at: iso(row.at),
    workspaceId: row.workspace_id,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: row.target_type === null ? null : { type: row.target_type, id: row.target_id, label: row.target_label },
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
    changes: row.changes,
  };
}
