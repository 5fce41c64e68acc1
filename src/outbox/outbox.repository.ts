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
   * (queued by an instance of the previous version) share one key. The keys are walked in
   * key order, up to `maxKeys` of them from the first after `after` (wrapping around): the
   * work grows with the keys walked and `limit`, not with the backlog (docs/webhooks.md has
   * the figures). Past `maxKeys` keys with due messages, a round serves the keys its walk
   * reached, and the caller's next `after` (the last key it was given) moves the walk on.
   */
  @GenerateSql({ params: () => [new Date(0), 'example', 50, 'ws_sqlsnapshot00000000000000', 1000] })
  dueInTurns(now: Date, kind: string, limit: number, after: string, maxKeys: number): Promise<DueMessage[]> {
    const pending = (o: string) => `${o}.delivered_at IS NULL AND ${o}.dead_at IS NULL AND ${o}.kind = $2 AND ${o}.next_attempt_at <= $1`;
    const firstKey = (after: string) =>
      `(SELECT o.share_key FROM outbox_messages o WHERE ${pending('o')} AND o.share_key ${after} ORDER BY o.share_key LIMIT 1)`;
    return this.dataSource.query(
      `WITH RECURSIVE keys AS (
           SELECT k.share_key, k.share_key AS start, 1 AS n FROM (SELECT coalesce(${firstKey('> $4')}, ${firstKey('IS NOT NULL')}) AS share_key) k
           UNION ALL
           SELECT next.share_key, k.start, k.n + 1 FROM keys k
             CROSS JOIN LATERAL (SELECT coalesce(${firstKey('> k.share_key')}, ${firstKey('IS NOT NULL')}) AS share_key) next
            WHERE k.n < $5 AND next.share_key <> k.start),
         depth AS (SELECT CASE WHEN count(*) >= $3 THEN 1 ELSE $3 END AS per_key FROM keys WHERE share_key IS NOT NULL),
         turns AS (
           SELECT d.id, d.next_attempt_at, d.created_at, row_number() OVER (PARTITION BY k.share_key ORDER BY d.next_attempt_at, d.created_at) AS turn
             FROM keys k
             CROSS JOIN LATERAL (SELECT o.id, o.next_attempt_at, o.created_at FROM outbox_messages o
                                  WHERE ${pending('o')} AND o.share_key = k.share_key
                                  ORDER BY o.next_attempt_at, o.created_at LIMIT (SELECT per_key FROM depth)) d
            WHERE k.share_key IS NOT NULL
           UNION ALL
           SELECT id, next_attempt_at, created_at, row_number() OVER (ORDER BY next_attempt_at, created_at)
             FROM (SELECT o.id, o.next_attempt_at, o.created_at FROM outbox_messages o WHERE ${pending('o')} AND o.share_key IS NULL
                    ORDER BY o.next_attempt_at, o.created_at LIMIT (SELECT per_key FROM depth)) unkeyed)
       SELECT m.id, m.kind, m.payload, m.attempts, m.share_key AS "shareKey"
         FROM (SELECT * FROM turns ORDER BY turn, next_attempt_at, created_at, id LIMIT $3) t JOIN outbox_messages m ON m.id = t.id
        ORDER BY t.turn, t.next_attempt_at, t.created_at, t.id`,
      [now, kind, limit, after, maxKeys],
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
