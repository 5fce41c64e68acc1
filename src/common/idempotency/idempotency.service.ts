import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../time';
import { idempotencyError } from './idempotency.errors';

/** Keys are kept this long (Stripe's window). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A first request that has not finished after this long is taken to have died. */
const IN_PROGRESS_TIMEOUT_MS = 5 * 60 * 1000;

/** `createdAt` identifies this claim of the key: a taken-over key is another row. */
export type IdempotencyStart = { kind: 'new'; createdAt: Date } | { kind: 'replay'; status: number; body: unknown };

/**
 * The claim of a key by the request now running. A handler whose work commits in a
 * transaction completes the key in that same transaction (`completeIn`): a crash
 * between the two would otherwise leave the work done and the key in progress, and a
 * retry after the takeover window would do it again.
 */
export interface IdempotencyClaim {
  workspaceId: string;
  key: string;
  createdAt: Date;
  status: number;
  /** Set once completeIn ran: the interceptor then has nothing left to record. */
  completed: boolean;
}

/** The hook a transactional handler gives its service: completes the key with the response `view` builds. */
export function completeKeyWith<R>(service: IdempotencyService, claim: IdempotencyClaim | undefined, view: (result: R) => unknown) {
  return claim ? (m: EntityManager, result: R) => service.completeIn(m, claim, view(result)) : undefined;
}

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
      if (inserted.length > 0) return { kind: 'new', createdAt: now };
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
        throw idempotencyError('idempotency_key_reused', `Idempotency-Key "${key}" was already used with a different request`);
      }
      if (row.response_status === null) {
        throw idempotencyError('idempotency_key_in_progress', `A request with Idempotency-Key "${key}" is still in progress`);
      }
      return { kind: 'replay', status: row.response_status, body: row.response_body };
    }
    throw idempotencyError('idempotency_key_in_progress', `Idempotency-Key "${key}" is being reused concurrently; retry`);
  }

  async complete(workspaceId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.dataSource.query('UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE workspace_id = $1 AND key = $2', [
      workspaceId,
      key,
      status,
      JSON.stringify(body),
    ]);
  }

  /**
   * Records the response inside the caller's transaction, so it commits (or not) with
   * the work. Refuses (rolling the work back) when the claim is no longer this
   * request's: it ran past the takeover window and a retry took the key over.
   */
  async completeIn(m: EntityManager, claim: IdempotencyClaim, body: unknown): Promise<void> {
    const [, count]: [unknown, number] = await m.query(
      `UPDATE idempotency_keys SET response_status = $4, response_body = $5
       WHERE workspace_id = $1 AND key = $2 AND created_at = $3 AND response_status IS NULL`,
      [claim.workspaceId, claim.key, claim.createdAt, claim.status, JSON.stringify(body)],
    );
    if (count !== 1) {
      throw idempotencyError('idempotency_key_in_progress', `Idempotency-Key "${claim.key}" was taken over by a retry while this request ran; nothing was done`);
    }
    claim.completed = true;
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
