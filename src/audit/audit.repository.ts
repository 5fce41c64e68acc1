import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { preparedQuery } from '../database/prepared-query';
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
 * entry is inserted with it. One round trip, so an audited change costs one more query;
 * prepared, since it runs inside the writers' critical section (the workspace's lock), where
 * planning its three parts on every call would lengthen what every writer waits for.
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

/** What a reader narrows a workspace's log to (GET …/audit-log); every field optional. */
export interface AuditFilter {
  from?: Date;
  to?: Date;
  /** An actor id (`usr_…`, `tok_…`). */
  actor?: string;
  /** An exact action, or a prefix ending in `.` (`project.`). */
  action?: string;
  /** A target id. */
  target?: string;
}

/** An entry as read back, with what the chain check needs. */
export interface AuditRow {
  id: string;
  workspace_id: string;
  seq: string;
  at: Date;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  changes: string[];
}

/** One link of the chain as verify reads it: the stored hashes and the one recomputed from the row. */
export interface ChainLink {
  id: string;
  seq: string;
  prev_hash: string;
  hash: string;
  recomputed: string;
}

/** Where a workspace's chain ends, and where retention cut its beginning. */
export interface ChainHead {
  seq: string;
  last_hash: string;
  pruned_seq: string;
  pruned_hash: string;
}

const COLUMNS = `id, workspace_id, seq, at, actor_type, actor_id, actor_label, action, target_type, target_id, target_label, ip, user_agent, request_id, changes`;

/**
 * The filters as one WHERE clause over parameters $1 (workspace) to $6. A prefix action
 * is compared with starts_with: `_` in an action name is no wildcard there, as in LIKE.
 */
const FILTERED = `workspace_id = $1
    AND ($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at <= $3)
    AND ($4::text IS NULL OR actor_id = $4) AND ($6::text IS NULL OR target_id = $6)
    AND ($5::text IS NULL OR (CASE WHEN right($5, 1) = '.' THEN starts_with(action, $5) ELSE action = $5 END))`;

const filterParams = (workspaceId: string, f: AuditFilter) => [workspaceId, f.from ?? null, f.to ?? null, f.actor ?? null, f.action ?? null, f.target ?? null];

const SNAPSHOT_FILTER: AuditFilter = { from: new Date(0), to: new Date(0), actor: 'usr_x', action: 'project.', target: 'proj_x' };

/** Every query on audit_log and audit_heads. */
@Injectable()
export class AuditRepository {
  constructor(private readonly dataSource: DataSource) {}

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
    await preparedQuery(
      this.dataSource,
      'audit_append',
      APPEND,
      [
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
      ],
      manager,
    );
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

  /** One page of a workspace's entries, newest first. */
  @GenerateSql({ params: (f) => [f.workspaceId, SNAPSHOT_FILTER, 20, 0] })
  page(workspaceId: string, filter: AuditFilter, limit: number, offset: number): Promise<AuditRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM audit_log WHERE ${FILTERED} ORDER BY seq DESC LIMIT $7 OFFSET $8`, [
      ...filterParams(workspaceId, filter),
      limit,
      offset,
    ]);
  }

  @GenerateSql({ params: (f) => [f.workspaceId, SNAPSHOT_FILTER] })
  async count(workspaceId: string, filter: AuditFilter): Promise<number> {
    const [row]: { n: number }[] = await this.dataSource.query(`SELECT count(*)::int AS n FROM audit_log WHERE ${FILTERED}`, filterParams(workspaceId, filter));
    return row.n;
  }

  /** The export's next batch: the matching entries older (lower `seq`) than `beforeSeq`, newest first. */
  @GenerateSql({ params: (f) => [f.workspaceId, SNAPSHOT_FILTER, 1000, 500] })
  batchBefore(workspaceId: string, filter: AuditFilter, beforeSeq: number, limit: number): Promise<AuditRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM audit_log WHERE ${FILTERED} AND seq < $7 ORDER BY seq DESC LIMIT $8`, [
      ...filterParams(workspaceId, filter),
      beforeSeq,
      limit,
    ]);
  }

  /** The end of the workspace's chain and where retention cut it; null before its first entry. */
  @GenerateSql({ params: (f) => [f.workspaceId] })
  async head(workspaceId: string): Promise<ChainHead | null> {
    const rows: ChainHead[] = await this.dataSource.query(`SELECT seq, last_hash, pruned_seq, pruned_hash FROM audit_heads WHERE workspace_id = $1`, [
      workspaceId,
    ]);
    return rows[0] ?? null;
  }

  /** The chain's next links after `afterSeq`, each with the hash recomputed from the row as it is now. */
  @GenerateSql({ params: (f) => [f.workspaceId, 0, 1000] })
  linksAfter(workspaceId: string, afterSeq: number, limit: number): Promise<ChainLink[]> {
    return this.dataSource.query(
      `SELECT id, seq, prev_hash, hash, audit_entry_hash(prev_hash, id, workspace_id, seq, at, actor_type, actor_id, actor_label, action,
              target_type, target_id, target_label, ip, user_agent, request_id, changes) AS recomputed
         FROM audit_log WHERE workspace_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [workspaceId, afterSeq, limit],
    );
  }

  /**
   * Retention: removes each workspace's entries up to its newest one older than `before`
   * (a prefix of its chain, never a hole in it: entries of one workspace can commit a few
   * milliseconds out of time order) and moves its head's pruned mark there, under the
   * head's row lock so writers of the workspace wait. Returns how many were removed.
   */
  @GenerateSql({ params: (f) => [f.manager, new Date(0)] })
  async prune(manager: EntityManager, before: Date): Promise<number> {
    const [row]: { n: number }[] = await manager.query(
      `WITH cut AS (
         SELECT workspace_id, max(seq) AS seq FROM audit_log WHERE at < $1 GROUP BY workspace_id
       ), locked AS (
         SELECT h.workspace_id FROM audit_heads h JOIN cut USING (workspace_id) ORDER BY h.workspace_id FOR UPDATE OF h
       ), removed AS (
         DELETE FROM audit_log a USING cut, locked
         WHERE a.workspace_id = cut.workspace_id AND locked.workspace_id = cut.workspace_id AND a.seq <= cut.seq
         RETURNING a.workspace_id, a.seq, a.hash
       ), last AS (
         SELECT DISTINCT ON (workspace_id) workspace_id, seq, hash FROM removed ORDER BY workspace_id, seq DESC
       ), marked AS (
         UPDATE audit_heads h SET pruned_seq = last.seq, pruned_hash = last.hash FROM last
         WHERE h.workspace_id = last.workspace_id AND last.seq > h.pruned_seq
       )
       SELECT count(*)::int AS n FROM removed`,
      [before],
    );
    return row.n;
  }
}
