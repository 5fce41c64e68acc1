import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { preparedQuery } from '../database/prepared-query';
import type { Role } from '../shared/principal';
import type { DigestItemKind } from './notification-digest-item.entity';
import type { DigestMode } from './notification-preference.entity';
import type { NotificationTopic } from './unsubscribe-token';

export interface Recipient {
  userId: string;
  email: string;
  name: string;
  role: Role;
  digest: DigestMode;
}

export interface WorkspacePreferences {
  workspaceId: string;
  workspaceName: string;
  role: Role;
  buildFailed: boolean;
  domainFailed: boolean;
  digest: DigestMode;
}

export interface PreferenceChange {
  buildFailed: boolean;
  domainFailed: boolean;
  digest: DigestMode;
}

export interface NewDigestItem {
  id: string;
  userId: string;
  workspaceId: string;
  kind: DigestItemKind;
  projectId: string;
  projectSlug: string;
  refId: string;
  formName: string | null;
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  createdAt: Date;
}

export interface DueDigest {
  userId: string;
  workspaceId: string;
  email: string;
  name: string;
  workspaceName: string;
  /** Items created before this are the digest's. */
  until: Date;
}

export type StoredDigestItem = NewDigestItem;

/** Which column a topic's opt-in is. Fixed strings, never user input. */
const TOPIC_CONDITION: Record<NotificationTopic, string> = {
  build_failed: 'p.build_failed',
  domain_failed: 'p.domain_failed',
  digest: `p.digest <> 'off'`,
};

const ITEM_COLUMNS = `id, user_id AS "userId", workspace_id AS "workspaceId", kind, project_id AS "projectId", project_slug AS "projectSlug",
  ref_id AS "refId", form_name AS "formName", key_id AS "keyId", nonce, ciphertext, created_at AS "createdAt"`;

/** SQL true when someone in the workspace opted in to `topic`: a superset of `NotificationsRepository.recipients` (the EventBus probe of the notifications listener). */
export function optedInCondition(topic: NotificationTopic, workspace: string): string {
  return `EXISTS (SELECT 1 FROM notification_preferences p WHERE p.workspace_id = ${workspace} AND ${TOPIC_CONDITION[topic]})`;
}

/**
 * Every query on notification_preferences and notification_digest_items. The recipients
 * are read through the workspace's active memberships and the users' verified addresses,
 * so a person who left a workspace, or whose address is not confirmed, gets nothing.
 */
@Injectable()
export class NotificationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The active members of the workspace, with a verified address, who opted in to `topic`.
   * Prepared (one statement per topic): every lead and form submission asks it, and its
   * joins cost more to plan than to run.
   */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'digest'] })
  recipients(m: EntityManager, workspaceId: string, topic: NotificationTopic): Promise<Recipient[]> {
    return preparedQuery<Recipient>(
      this.dataSource,
      `notification_recipients_${topic}`,
      `SELECT u.id AS "userId", u.email, u.name, wm.role, p.digest
         FROM notification_preferences p
         JOIN workspace_members wm ON wm.workspace_id = p.workspace_id AND wm.user_id = p.user_id AND wm.status = 'active'
         JOIN users u ON u.id = p.user_id AND u.email_verified_at IS NOT NULL
        WHERE p.workspace_id = $1 AND ${TOPIC_CONDITION[topic]}
        ORDER BY u.id`,
      [workspaceId],
      m,
    );
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  async workspaceName(m: EntityManager, workspaceId: string): Promise<string> {
    const [row] = (await m.query('SELECT name FROM workspaces WHERE id = $1', [workspaceId])) as { name: string }[];
    return row?.name ?? workspaceId;
  }

  /** The user's choices in every workspace they are an active member of (off where never set). */
  @GenerateSql({ params: (f) => [f.userId] })
  forUser(userId: string): Promise<WorkspacePreferences[]> {
    return this.dataSource.query(
      `SELECT w.id AS "workspaceId", w.name AS "workspaceName", wm.role,
              COALESCE(p.build_failed, false) AS "buildFailed", COALESCE(p.domain_failed, false) AS "domainFailed", COALESCE(p.digest, 'off') AS digest
         FROM workspace_members wm
         JOIN workspaces w ON w.id = wm.workspace_id
         LEFT JOIN notification_preferences p ON p.user_id = wm.user_id AND p.workspace_id = wm.workspace_id
        WHERE wm.user_id = $1 AND wm.status = 'active'
        ORDER BY w.name, w.id`,
      [userId],
    );
  }

  @GenerateSql({ params: (f) => [f.manager, f.userId, f.workspaceId, { buildFailed: true, domainFailed: false, digest: 'daily' }, new Date(0)] })
  async upsert(m: EntityManager, userId: string, workspaceId: string, change: PreferenceChange, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO notification_preferences (user_id, workspace_id, build_failed, domain_failed, digest, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (user_id, workspace_id) DO UPDATE SET build_failed = $3, domain_failed = $4, digest = $5, updated_at = $6`,
      [userId, workspaceId, change.buildFailed, change.domainFailed, change.digest, now],
    );
  }

  /** Turns one topic off (an unsubscribe link); a choice never made stays off. */
  @GenerateSql({ params: (f) => [f.userId, f.workspaceId, 'digest', new Date(0)] })
  async turnOff(userId: string, workspaceId: string, topic: NotificationTopic, now: Date): Promise<void> {
    const set = topic === 'digest' ? `digest = 'off'` : topic === 'build_failed' ? 'build_failed = false' : 'domain_failed = false';
    await this.dataSource.query(`UPDATE notification_preferences SET ${set}, updated_at = $3 WHERE user_id = $1 AND workspace_id = $2`, [
      userId,
      workspaceId,
      now,
    ]);
  }

  /**
   * Which of these users still exist, held so until the transaction ends: an event planned
   * before its transaction (a form post) writes digest items only for them, never for an
   * account deleted meanwhile (a foreign-key failure, which failed the whole write).
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, [f.userId]] })
  async holdUsers(m: EntityManager, ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await m.query('SELECT id FROM users WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE', [ids]);
    return new Set(rows.map((r) => r.id));
  }

  @GenerateSql({
    params: (f) => [
      f.manager,
      [
        {
          id: '00000000-0000-4000-8000-000000000000',
          userId: f.userId,
          workspaceId: f.workspaceId,
          kind: 'lead',
          projectId: f.projectId,
          projectSlug: f.projectSlug,
          refId: 'lead_sqlsnapshot',
          formName: null,
          keyId: 'k1',
          nonce: Buffer.alloc(12),
          ciphertext: Buffer.alloc(32),
          createdAt: new Date(0),
        },
      ],
    ],
  })
  async insertItems(m: EntityManager, items: NewDigestItem[]): Promise<void> {
    if (items.length === 0) return;
    const values: unknown[] = [];
    const rows = items.map((item, i) => {
      values.push(item.id, item.userId, item.workspaceId, item.kind, item.projectId, item.projectSlug, item.refId, item.formName);
      values.push(item.keyId, item.nonce, item.ciphertext, item.createdAt);
      return `(${Array.from({ length: 12 }, (_, j) => `$${i * 12 + j + 1}`).join(', ')})`;
    });
    await m.query(
      `INSERT INTO notification_digest_items (id, user_id, workspace_id, kind, project_id, project_slug, ref_id, form_name, key_id, nonce, ciphertext, created_at)
       VALUES ${rows.join(', ')}`,
      values,
    );
  }

  /**
   * The recipients whose digest is due: immediate ones whose oldest waiting item is older
   * than `immediateBefore` (everything they have goes out), daily ones with an item older
   * than `dailyCutoff` (what came before the cutoff goes out). Still opted in, still members.
   */
  @GenerateSql({ params: () => [new Date(0), new Date(0), new Date(0), 100] })
  due(now: Date, immediateBefore: Date, dailyCutoff: Date, limit: number): Promise<DueDigest[]> {
    return this.dataSource.query(
      `SELECT i.user_id AS "userId", i.workspace_id AS "workspaceId", u.email, u.name, w.name AS "workspaceName",
              CASE p.digest WHEN 'immediate' THEN $1::timestamptz ELSE $3::timestamptz END AS until
         FROM (SELECT user_id, workspace_id, min(created_at) AS oldest FROM notification_digest_items GROUP BY user_id, workspace_id) i
         JOIN notification_preferences p ON p.user_id = i.user_id AND p.workspace_id = i.workspace_id
         JOIN workspace_members wm ON wm.workspace_id = i.workspace_id AND wm.user_id = i.user_id AND wm.status = 'active'
         JOIN users u ON u.id = i.user_id AND u.email_verified_at IS NOT NULL
         JOIN workspaces w ON w.id = i.workspace_id
        WHERE (p.digest = 'immediate' AND i.oldest <= $2) OR (p.digest = 'daily' AND i.oldest < $3)
        ORDER BY i.oldest
        LIMIT $4`,
      [now, immediateBefore, dailyCutoff, limit],
    );
  }

  /** Takes (deletes and returns) one recipient's items created at or before `until`, oldest first. */
  @GenerateSql({ params: (f) => [f.manager, f.userId, f.workspaceId, new Date(0)] })
  async take(m: EntityManager, userId: string, workspaceId: string, until: Date): Promise<StoredDigestItem[]> {
    const [rows] = (await m.query(
      `DELETE FROM notification_digest_items WHERE user_id = $1 AND workspace_id = $2 AND created_at <= $3 RETURNING ${ITEM_COLUMNS}`,
      [userId, workspaceId, until],
    )) as [StoredDigestItem[], number];
    return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  /** Items nobody will get: their recipient turned the digest off, left the workspace or lost their verified address. */
  @GenerateSql({ params: () => [] })
  async dropUndeliverable(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM notification_digest_items i
        WHERE NOT EXISTS (
          SELECT 1 FROM notification_preferences p
            JOIN workspace_members wm ON wm.workspace_id = p.workspace_id AND wm.user_id = p.user_id AND wm.status = 'active'
            JOIN users u ON u.id = p.user_id AND u.email_verified_at IS NOT NULL
           WHERE p.user_id = i.user_id AND p.workspace_id = i.workspace_id AND p.digest <> 'off')`,
    );
  }
}
