import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import type { AuditActorType } from './audit.entities';

/** An entry as the writer gives it; `seq`, `prevHash` and `hash` come from the chain's head. */
export interface NewAuditEntry {
  id: string;
  workspaceId: string;
  at: Date;
  actorType: AuditActorType;
  actorId: string | null;
  /** Null: the user's email or the token's name, read in the same statement. */
  actorLabel: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  changes: string[];
}

/**
 * One statement appends an entry: the head row of the workspace's chain is created or
 * advanced (its row lock orders concurrent writers of one workspace until they commit),
 * the entry's hash is computed from the head's last hash by `audit_entry_hash`, and the
 * entry is inserted with it. One round trip, so an audited change costs one more query.
 */
const APPEND = `
  WITH e AS (
    SELECT $1::text AS id, $2::text AS workspace_id, $3::timestamptz(3) AS at, $4::text AS actor_type, $5::text AS actor_id,
      COALESCE($6::text, (SELECT email FROM users WHERE id = $5), (SELECT name FROM access_tokens WHERE id = $5), $4::text) AS actor_label,
      $7::text AS action, $8::text AS target_type, $9::text AS target_id, $10::text AS target_label,
      $11::text AS ip, $12::text AS user_agent, $13::text AS request_id, $14::jsonb AS changes
  ), head AS (
    INSERT INTO audit_heads AS h (workspace_id, seq, prev_hash, last_hash)
    SELECT e.workspace_id, 1, '', audit_entry_hash('', e.id, e.workspace_id, 1, e.at, e.actor_type, e.actor_id, e.actor_label,
      e.action, e.target_type, e.target_id, e.target_label, e.ip, e.user_agent, e.request_id, e.changes) FROM e
    ON CONFLICT (workspace_id) DO UPDATE SET seq = h.seq + 1, prev_hash = h.last_hash, last_hash = (
      SELECT audit_entry_hash(h.last_hash, e.id, e.workspace_id, h.seq + 1, e.at, e.actor_type, e.actor_id, e.actor_label,
        e.action, e.target_type, e.target_id, e.target_label, e.ip, e.user_agent, e.request_id, e.changes) FROM e)
    RETURNING h.seq, h.prev_hash, h.last_hash
  )
  INSERT INTO audit_log (id, workspace_id, seq, at, actor_type, actor_id, actor_label, action, target_type, target_id, target_label,
    ip, user_agent, request_id, changes, prev_hash, hash)
  SELECT e.id, e.workspace_id, head.seq, e.at, e.actor_type, e.actor_id, e.actor_label, e.action, e.target_type, e.target_id,
    e.target_label, e.ip, e.user_agent, e.request_id, e.changes, head.prev_hash, head.last_hash
  FROM e, head`;

/** Every query on audit_log and audit_heads. */
@Injectable()
export class AuditRepository {
  @GenerateSql({
    params: (f) => [
      f.manager,
      {
        id: 'aud_sqlsnapshot00000000000000',
        workspaceId: f.workspaceId,
        at: new Date(0),
        actorType: 'user',
        actorId: f.userId,
        actorLabel: null,
        action: 'project.deleted',
        targetType: 'project',
        targetId: f.projectId,
        targetLabel: 'fixture',
        ip: '203.0.113.0/24',
        userAgent: 'Chrome',
        requestId: 'req',
        changes: [],
      } satisfies NewAuditEntry,
    ],
  })
  async append(manager: EntityManager, entry: NewAuditEntry): Promise<void> {
    await manager.query(APPEND, [
      entry.id,
      entry.workspaceId,
      entry.at,
      entry.actorType,
      entry.actorId,
      entry.actorLabel,
      entry.action,
      entry.targetType,
      entry.targetId,
      entry.targetLabel,
      entry.ip,
      entry.userAgent,
      entry.requestId,
      JSON.stringify(entry.changes),
    ]);
  }

  /** The workspaces a user is an active member of: an account's own events (sign-ins, two-factor) go to each of their logs. */
  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  async workspacesOf(manager: EntityManager, userId: string): Promise<string[]> {
    const rows: { workspace_id: string }[] = await manager.query(
      `SELECT workspace_id FROM workspace_members WHERE user_id = $1 AND status = 'active' ORDER BY workspace_id`,
      [userId],
    );
    return rows.map((r) => r.workspace_id);
  }
}
