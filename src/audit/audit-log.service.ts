import { Injectable } from '@nestjs/common';
import {
  DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
  type TransactionStartEvent,
} from 'typeorm';

import { newId } from '../common/ids';
import { Clock } from '../common/time';
import { transactionDepth } from '../database/savepoint';
import { AuditRepository, type NewAuditEntry } from './audit.repository';
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
 * caller) is read from the request being served (AuditContextInterceptor), when recorded.
 *
 * Inside a transaction the entries are written when it commits (TypeORM's
 * beforeTransactionCommit), all of them at once, workspace by workspace in id order. Each
 * holds its workspace's chain (`audit_heads`) to the commit, so writing it where it was
 * recorded made the chain a lock taken in the middle of a transaction: a change that took
 * it and then a row another change held first (a project's, a form's, a workspace's, or a
 * second workspace's chain) waited for that change while it waited for the chain, and
 * PostgreSQL ended one of them (a 500). Taken last, and in one order, the chains are
 * never part of such a cycle (docs/decisions.md). Not inside a transaction: written at once.
 */
@Injectable()
export class AuditLogService implements EntitySubscriberInterface {
  /** A transaction's entries not written yet, in the order recorded. */
  private readonly pending = new WeakMap<QueryRunner, NewAuditEntry[]>();
  /**
   * Transactions rolled back while their entries were being written: TypeORM runs every
   * commit hook at once, so another one failing (the site-change webhook's) rolls back
   * while this one is between two statements, and its next would run after the ROLLBACK,
   * outside any transaction: an entry of a change that did not happen.
   */
  private readonly rolledBack = new WeakSet<QueryRunner>();

  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
  ) {
    dataSource.subscribers.push(this);
  }

  afterTransactionStart(event: TransactionStartEvent): void {
    if (transactionDepth(event.queryRunner) <= 1) this.rolledBack.delete(event.queryRunner);
  }

  /** The transaction commits: its entries first (a failure here rolls it back, entries and change alike). */
  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const runner = event.queryRunner;
    // A savepoint released (TypeORM's nested transactions): the entries wait for the outer commit.
    if (transactionDepth(runner) > 1) return;
    const entries = this.pending.get(runner);
    if (!entries) return;
    this.pending.delete(runner);
    // Stamped now, as the chain's place is taken now: `at` keeps following `seq` (retention cuts by time).
    const at = this.clock.now();
    // Stable: a workspace's entries keep the order they were recorded in.
    const ordered = [...entries].sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0));
    for (const entry of ordered) {
      if (this.rolledBack.has(runner)) return;
      await this.repository.append(event.manager, { ...entry, at });
    }
  }

  /** Rolled back: its entries are forgotten with the change (a savepoint's too: none is recorded under one today). */
  beforeTransactionRollback(event: TransactionRollbackEvent): void {
    if (transactionDepth(event.queryRunner) > 1) return;
    this.pending.delete(event.queryRunner);
    this.rolledBack.add(event.queryRunner);
  }

  async record(m: EntityManager, change: AuditChange): Promise<void> {
    if (!ACTION.test(change.action)) throw new Error(`audit action "${change.action}" is not <type>.<verb>`);
    const request = currentAuditRequest();
    const actor: AuditActor = change.actor ?? request?.actor ?? { type: 'system', id: null, label: 'system' };
    const changes = [...new Set(change.changes ?? [])].filter((name) => FIELD.test(name)).sort();
    const entry: NewAuditEntry = {
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
    };
    if (request) request.recorded++;
    const runner = m.queryRunner;
    // Another data source's transaction (a second app in one process) commits without this hook: written at once.
    if (runner?.isTransactionActive && runner.connection === this.dataSource) {
      const entries = this.pending.get(runner);
      if (entries) entries.push(entry);
      else this.pending.set(runner, [entry]);
      return;
    }
    await this.repository.append(m, entry);
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
