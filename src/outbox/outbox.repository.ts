import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

export interface DueMessage {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  /** Read by dueInTurns only. */
  shareKey?: string | null;
}

/** One outbox kind's queue. */
export interface OutboxBacklog {
  kind: string;
  /** Pending and due: a round will send them. */
  due: number;
  /** Pending and waiting for a retry (or a schedule). */
  waiting: number;
  /** Given up on and kept for inspection (30 days). */
  dead: number;
  /** Seconds since the oldest due message came due; 0 when none is due. */
  oldestDueSeconds: number;
}

/** Every query on outbox_messages. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inside the caller's transaction: the message exists only if that transaction commits. */
  @GenerateSql({ params: (f) => [f.manager, 'obx_sqlsnapshot0000000000000000', 'example', { a: 1 }, new Date(0), 'ws_sqlsnapshot00000000000000'] })
  async insert(manager: EntityManager, id: string, kind: string, payload: Record<string, unknown>, now: Date, shareKey: string | null): Promise<void> {
    await manager.query(
      `INSERT INTO outbox_messages (id, kind, payload, created_at, attempts, next_attempt_at, share_key) VALUES ($1, $2, $3, $4, 0, $4, $5)`,
      [id, kind, JSON.stringify(payload), now, shareKey],
    );
  }

  @GenerateSql({ params: () => [new Date(0), ['example'], 50] })
  due(now: Date, kinds: string[], limit: number): Promise<DueMessage[]> {
    return this.dataSource.query(
      `SELECT id, kind, payload, attempts FROM outbox_messages
        WHERE delivered_at IS NULL AND dead_at IS NULL AND next_attempt_at <= $1 AND kind = ANY($2)
        ORDER BY next_attempt_at, created_at LIMIT $3`,
      [now, kinds, limit],
    );
  }

  /**
   * The due messages of one kind taken in turns by share key: every key's oldest first
   * (oldest first among them), then every key's second, and so on; messages without a key
   * (queued before keys existed) share one key. The keys of pending messages are walked in
   * key order in the partial index of pending messages, from the first after `after`
   * (wrapping around), one index seek each plus one to see whether the key has a due
   * message, until `maxDueKeys` keys with one were found or `maxKeys` keys were walked
   * (keys whose messages all wait for a retry are walked past, not read). At most `limit`
   * due messages are read per key (one when at least `limit` keys have one). So the work
   * follows the keys walked and `limit`, not the backlog (docs/webhooks.md has the
   * figures). `walkedTo`, the last key walked, is where the caller's next walk starts.
   */
  @GenerateSql({ params: () => [new Date(0), 'example', 50, 'ws_sqlsnapshot00000000000000', 1000, 10000] })
  async dueInTurns(
    now: Date,
    kind: string,
    limit: number,
    after: string,
    maxDueKeys: number,
    maxKeys: number,
  ): Promise<{ messages: DueMessage[]; walkedTo: string | null }> {
    const pending = (o: string) => `${o}.delivered_at IS NULL AND ${o}.dead_at IS NULL AND ${o}.kind = $2`;
    const hasDue = (key: string) => `EXISTS (SELECT 1 FROM outbox_messages o WHERE ${pending('o')} AND o.share_key = ${key} AND o.next_attempt_at <= $1)`;
    const firstKey = (after: string) =>
      `(SELECT o.share_key FROM outbox_messages o WHERE ${pending('o')} AND o.share_key ${after} ORDER BY o.share_key LIMIT 1)`;
    const [row]: { walkedTo: string | null; messages: DueMessage[] }[] = await this.dataSource.query(
      `WITH RECURSIVE keys AS (
           SELECT k.share_key, k.share_key AS start, 1 AS n, d.due, d.due::int AS due_n
             FROM (SELECT coalesce(${firstKey('> $4')}, ${firstKey('IS NOT NULL')}) AS share_key) k
             CROSS JOIN LATERAL (SELECT ${hasDue('k.share_key')} AS due) d
           UNION ALL
           SELECT next.share_key, k.start, k.n + 1, d.due, k.due_n + d.due::int FROM keys k
             CROSS JOIN LATERAL (SELECT coalesce(${firstKey('> k.share_key')}, ${firstKey('IS NOT NULL')}) AS share_key) next
             CROSS JOIN LATERAL (SELECT ${hasDue('next.share_key')} AS due) d
            WHERE k.n < $6 AND k.due_n < $5 AND next.share_key <> k.start),
         due_keys AS (SELECT share_key FROM keys WHERE share_key IS NOT NULL AND due),
         depth AS (SELECT CASE WHEN count(*) >= $3 THEN 1 ELSE $3 END AS per_key FROM due_keys),
         turns AS (
           SELECT d.id, d.next_attempt_at, d.created_at,
                  row_number() OVER (PARTITION BY k.share_key ORDER BY d.next_attempt_at, d.created_at, d.id) AS turn
             FROM due_keys k
             CROSS JOIN LATERAL (SELECT o.id, o.next_attempt_at, o.created_at FROM outbox_messages o
                                  WHERE ${pending('o')} AND o.share_key = k.share_key AND o.next_attempt_at <= $1
                                  ORDER BY o.next_attempt_at, o.created_at, o.id LIMIT (SELECT per_key FROM depth)) d
           UNION ALL
           SELECT id, next_attempt_at, created_at, row_number() OVER (ORDER BY next_attempt_at, created_at, id)
             FROM (SELECT o.id, o.next_attempt_at, o.created_at FROM outbox_messages o
                    WHERE ${pending('o')} AND o.share_key IS NULL AND o.next_attempt_at <= $1
                    ORDER BY o.next_attempt_at, o.created_at, o.id LIMIT (SELECT per_key FROM depth)) unkeyed),
         picked AS (SELECT * FROM turns ORDER BY turn, next_attempt_at, created_at, id LIMIT $3)
       SELECT (SELECT share_key FROM keys ORDER BY n DESC LIMIT 1) AS "walkedTo",
              coalesce((SELECT json_agg(json_build_object('id', m.id, 'kind', m.kind, 'payload', m.payload, 'attempts', m.attempts, 'shareKey', m.share_key)
                                        ORDER BY p.turn, p.next_attempt_at, p.created_at, p.id)
                          FROM picked p JOIN outbox_messages m ON m.id = p.id), '[]') AS messages`,
      [now, kind, limit, after, maxDueKeys, maxKeys],
    );
    return row;
  }

  /**
   * Every kind's pending (due or waiting) and dead messages, and how long its oldest due one
   * has been due: /metrics, at most every 5 s per instance (MetricsService). Pending ones
   * are read through the partial index of pending messages, dead ones through that of dead
   * ones (which has no `kind`: each dead row is read from the table).
   */
  @GenerateSql({ params: () => [new Date(0)] })
  backlog(now: Date): Promise<OutboxBacklog[]> {
    return this.dataSource.query(
      `SELECT kind, sum(due)::int AS due, sum(waiting)::int AS waiting, sum(dead)::int AS dead, max(oldest)::float8 AS "oldestDueSeconds"
         FROM (SELECT kind, count(*) FILTER (WHERE next_attempt_at <= $1) AS due, count(*) FILTER (WHERE next_attempt_at > $1) AS waiting, 0 AS dead,
                      coalesce(extract(epoch FROM $1 - min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1)), 0) AS oldest
                 FROM outbox_messages WHERE delivered_at IS NULL AND dead_at IS NULL GROUP BY kind
               UNION ALL
               SELECT kind, 0, 0, count(*), 0 FROM outbox_messages WHERE dead_at IS NOT NULL GROUP BY kind) k
        GROUP BY kind ORDER BY kind`,
      [now],
    );
  }

  @GenerateSql({ params: () => ['obx_sqlsnapshot0000000000000000', 1, new Date(0)] })
  async markDelivered(id: string, attempts: number, now: Date): Promise<void> {
    await this.dataSource.query('UPDATE outbox_messages SET attempts = $2, delivered_at = $3, last_error = NULL WHERE id = $1', [id, attempts, now]);
  }

  /** A failed try: when to try again, or `deadAt` when it will not be tried again. */
  @GenerateSql({ params: () => ['obx_sqlsnapshot0000000000000000', 1, 'refused', new Date(0), null] })
  async markFailed(id: string, attempts: number, error: string, nextAttemptAt: Date, deadAt: Date | null): Promise<void> {
    await this.dataSource.query('UPDATE outbox_messages SET attempts = $2, last_error = $3, next_attempt_at = $4, dead_at = $5 WHERE id = $1', [
      id,
      attempts,
      error,
      nextAttemptAt,
      deadAt,
    ]);
  }

  /** Drops messages delivered before `delivered` and messages given up before `dead`. */
  @GenerateSql({ params: () => [new Date(0), new Date(0)] })
  async purgeBefore(delivered: Date, dead: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM outbox_messages WHERE delivered_at < $1', [delivered]);
    await this.dataSource.query('DELETE FROM outbox_messages WHERE dead_at < $1', [dead]);
  }
}
