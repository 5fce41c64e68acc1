import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { newId } from '../common/ids';
import { Clock } from '../common/time';
import { AuditRepository } from './audit.repository';
import { type AuditActor, currentAuditRequest } from './audit-context';

/** What was changed: `project`, `token`, `member`… and its id; `label` is what a person recognises it by (a name, an email). */
export interface AuditTarget {
  type: string;
  id: string | null;
  label?: string | null;
}

/** One change to record, as the service that made it describes it. */
export interface AuditChange {
  workspaceId: string;
  /** `<target type>.<past-tense verb>`: `project.deleted`, `token.revoked`, `user.signin_failed`. */
  action: string;
  target?: AuditTarget;
  /** The names of the fields the change set (a PATCH's keys); never their values. */
  changes?: readonly string[];
  /** Who made it; by default the request's caller, or the system when there is no request (a job). */
  actor?: AuditActor;
}

const ACTION = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const FIELD = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * The one way to write the audit log (issue 32). Always inside the transaction of the
 * change it records (`m`): the entry exists exactly when the change does, and a failed
 * change leaves none. Where the request came from (network, client family, request id,
 * caller) is read from the request being served (AuditContextInterceptor).
 */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
  ) {}

  async record(m: EntityManager, change: AuditChange): Promise<void> {
    if (!ACTION.test(change.action)) throw new Error(`audit action "${change.action}" is not <type>.<verb>`);
    const request = currentAuditRequest();
    const actor: AuditActor = change.actor ?? request?.actor ?? { type: 'system', id: null, label: 'system' };
    const changes = [...new Set(change.changes ?? [])].filter((name) => FIELD.test(name)).sort();
    await this.repository.append(m, {
      id: newId('aud'),
      workspaceId: change.workspaceId,
      at: this.clock.now(),
      actorType: actor.type,
      actorId: actor.id,
      actorLabel: actor.label ?? null,
      action: change.action,
      targetType: change.target?.type ?? null,
      targetId: change.target?.id ?? null,
      targetLabel: change.target?.label ?? null,
      ip: request?.ip ?? null,
      userAgent: request?.userAgent ?? null,
      requestId: request?.requestId ?? null,
      changes,
    });
    if (request) request.recorded++;
  }

  /**
   * An account's own event (a sign-in, a failed one, two-factor turned on): written to the
   * log of every workspace the user is an active member of, since each of those owners
   * answers for who can reach their workspace. A user in no workspace leaves no entry.
   */
  async recordForUser(m: EntityManager, userId: string, change: Omit<AuditChange, 'workspaceId'>): Promise<void> {
    for (const workspaceId of await this.repository.workspacesOf(m, userId)) await this.record(m, { ...change, workspaceId });
  }
}

/** The keys of a request body, for `changes`: what a PATCH set, never the values. */
export function changedFields(body: object | null | undefined): string[] {
  if (!body) return [];
  return Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key);
}
