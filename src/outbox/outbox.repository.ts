import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

export interface DueMessage {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
}

/** Every query on outbox_messages. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inside the caller's transaction: the message exists only if that transaction commits. */
  @GenerateSql({ params: (f) => [f.manager, 'obx_sqlsnapshot0000000000000000', 'example', { a: 1 }, new Date(0)] })
  async insert(manager: EntityManager, id: string, kind: string, payload: Record<string, unknown>, now: Date): Promise<void> {
    await manager.query(`INSERT INTO outbox_messages (id, kind, payload, created_at, attempts, next_attempt_at) VALUES ($1, $2, $3, $4, 0, $4)`, [
      id,
      kind,
      JSON.stringify(payload),
      now,
    ]);
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
