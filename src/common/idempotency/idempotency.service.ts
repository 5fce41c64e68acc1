import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError, conflict } from '../errors';
import { Clock } from '../time';

/** Keys are kept this long (Stripe's window). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A first request that has not finished after this long is taken to have died. */
const IN_PROGRESS_TIMEOUT_MS = 5 * 60 * 1000;

export type IdempotencyStart = { kind: 'new' } | { kind: 'replay'; status: number; body: unknown };

/** Stripe's semantics: same key + same request → the first response; same key + another request → 422. */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async begin(workspaceId: string, key: string, requestHash: string): Promise<IdempotencyStart> {
    const now = this.clock.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      const inserted = await this.dataSource.query(
        `INSERT INTO idempotency_keys (workspace_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING key`,
        [workspaceId, key, requestHash, now],
      );
      if (inserted.length > 0) return { kind: 'new' };
      const [row]: { request_hash: string; response_status: number | null; response_body: unknown; created_at: Date }[] =
        await this.dataSource.query('SELECT request_hash, response_status, response_body, created_at FROM idempotency_keys WHERE workspace_id = $1 AND key = $2', [
          workspaceId,
          key,
        ]);
      if (!row) continue;
      const age = now.getTime() - row.created_at.getTime();
      const stale = age >= IDEMPOTENCY_TTL_MS || (row.response_status === null && age >= IN_PROGRESS_TIMEOUT_MS);
      if (stale) {
        await this.dataSource.query('DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND created_at = $3', [workspaceId, key, row.created_at]);
        continue;
      }
      if (row.request_hash !== requestHash) {
        throw new ApiError(422, 'idempotency_key_reused', `Idempotency-Key "${key}" was already used with a different request`);
      }
      if (row.response_status === null) {
        throw conflict(`A request with Idempotency-Key "${key}" is still in progress`, 'idempotency_key_in_progress');
      }
      return { kind: 'replay', status: row.response_status, body: row.response_body };
    }
    throw conflict(`Idempotency-Key "${key}" is being reused concurrently; retry`, 'idempotency_key_in_progress');
  }

  async complete(workspaceId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.dataSource.query('UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE workspace_id = $1 AND key = $2', [
      workspaceId,
      key,
      status,
      JSON.stringify(body),
    ]);
  }

  /** A failed request leaves nothing behind: the client may retry with the same key. */
  async abandon(workspaceId: string, key: string): Promise<void> {
    await this.dataSource.query('DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND response_status IS NULL', [workspaceId, key]);
  }

  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
    const [, count] = await this.dataSource.query('DELETE FROM idempotency_keys WHERE created_at < $1', [cutoff]);
    return count ?? 0;
  }
}
