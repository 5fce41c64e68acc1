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

/** Runs `fn` (and everything it awaits) as part of `request`. */
export function runInAuditRequest<T>(request: AuditRequest, fn: () => T): T {
  return storage.run(request, fn);
}
