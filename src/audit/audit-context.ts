import { AsyncLocalStorage } from 'node:async_hooks';

import type { AuditActorType } from './audit.entities';

/** Who made a change: a signed-in user, an API token, or the service itself (a sweeper, a provider's webhook). */
export interface AuditActor {
  type: AuditActorType;
  /** `usr_…` or `tok_…`; null for the system. */
  id: string | null;
  /** When omitted, the user's email or the token's name is read in the writing statement. */
  label?: string;
}

/**
 * What the audit log knows of the request being served: set by AuditContextInterceptor
 * around the handler, read by AuditLogService.record. Services never pass the request
 * down to say where a change came from.
 */
export interface AuditRequest {
  requestId: string | null;
  /** The client's network (src/common/address-prefix.ts); worked out when first read. */
  readonly ip: string | null;
  /** The client's family (src/audit/user-agent-family.ts); worked out when first read. */
  readonly userAgent: string | null;
  /** The caller the guard resolved; null on public routes (sign-in), where the service names the actor. */
  actor: AuditActor | null;
  /** The route's declared action, when it declares one. */
  declared: string | null;
  /** Entries written so far in this request. */
  recorded: number;
}

const storage = new AsyncLocalStorage<AuditRequest>();

/** The request being served, if any (a background job has none). */
export function currentAuditRequest(): AuditRequest | undefined {
  return storage.getStore();
}

/** Requests inside the store now; while there is none, the store is disabled. */
let inFlight = 0;

/**
 * Runs `fn` (and everything it awaits) as part of `request`, until `leave` is called once,
 * when the request has ended. When no request is left, the store is disabled: on Node 20
 * an AsyncLocalStorage works through async hooks, which, once on, run for every promise,
 * socket write and timer of the whole process, site requests included (about 4 % of a
 * cached site answer's CPU in bench:serve-compare). Site traffic seldom overlaps an API
 * request's few milliseconds, so most of it now runs with the hooks off. Work a handler
 * leaves running after its request has ended sees no request, as background work does.
 */
export function enterAuditRequest<T>(request: AuditRequest, fn: () => T): { result: T; leave: () => void } {
  inFlight++;
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    if (--inFlight === 0) storage.disable();
  };
  try {
    return { result: storage.run(request, fn), leave };
  } catch (err) {
    leave();
    throw err;
  }
}

/**
 * The request being served, as a plain copy (its network and client family read now, while
 * the socket is there), for work that outlives it: a failed sign-in's entry written after
 * the answer still says where the attempt came from.
 */
export function detachAuditRequest(): AuditRequest | undefined {
  const request = storage.getStore();
  if (request === undefined) return undefined;
  const { requestId, ip, userAgent, actor, declared, recorded } = request;
  return { requestId, ip, userAgent, actor, declared, recorded };
}

/** Runs `work` as part of `request` (from detachAuditRequest) until it settles; without one, as background work. */
export async function inAuditRequest<T>(request: AuditRequest | undefined, work: () => Promise<T>): Promise<T> {
  if (request === undefined) return work();
  const { result, leave } = enterAuditRequest(request, work);
  try {
    return await result;
  } finally {
    leave();
  }
}
