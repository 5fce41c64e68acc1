import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Clock } from '../time';
import { idempotencyError } from './idempotency.errors';
import { IdempotencyRepository } from './idempotency.repository';
import { InstanceLease } from './instance-lease.service';

/** Keys are kept this long (Stripe's window). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A first request that has not finished after this long is taken to have died, when
 * nothing better says so: a claim whose process is gone (InstanceLease) is taken over at once.
 */
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
    private readonly keys: IdempotencyRepository,
    private readonly clock: Clock,
    private readonly lease: InstanceLease,
  ) {}

  async begin(workspaceId: string, key: string, requestHash: string): Promise<IdempotencyStart> {
    const now = this.clock.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.keys.claim(workspaceId, key, requestHash, now, this.lease.id)) return { kind: 'new', createdAt: now };
      const row = await this.keys.find(workspaceId, key);
      if (!row) continue;
      const age = now.getTime() - row.created_at.getTime();
      // A claimant gone mid-request left its work uncommitted (a transactional handler commits with the key), so redoing it is safe.
      const stale = age >= IDEMPOTENCY_TTL_MS || (row.response_status === null && (age >= IN_PROGRESS_TIMEOUT_MS || !row.claimant_alive));
      if (stale) {
        await this.keys.deleteClaim(workspaceId, key, row.created_at);
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

  async complete(claim: IdempotencyClaim, body: unknown): Promise<void> {
    await this.keys.complete(claim.workspaceId, claim.key, claim.createdAt, claim.status, body);
  }

  /**
   * Records the response inside the caller's transaction, so it commits (or not) with
   * the work. Refuses (rolling the work back) when the claim is no longer this
   * request's: it ran past the takeover window and a retry took the key over.
   */
  async completeIn(m: EntityManager, claim: IdempotencyClaim, body: unknown): Promise<void> {
    if (!(await this.keys.completeClaim(m, claim, claim.status, body))) {
      throw idempotencyError(
        'idempotency_key_in_progress',
        `Idempotency-Key "${claim.key}" was taken over by a retry while this request ran; nothing was done`,
      );
    }
    claim.completed = true;
  }

  /** A failed request leaves nothing behind: the client may retry with the same key. */
  async abandon(claim: IdempotencyClaim): Promise<void> {
    await this.keys.abandon(claim.workspaceId, claim.key, claim.createdAt);
  }

  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
    return this.keys.deleteCreatedBefore(cutoff);
  }
}
