import type { EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';

import { transactionDepth } from '../database/savepoint';

/** The PostgreSQL channel every instance LISTENs on to drop cached site state. */
export const SITE_CHANGED_CHANNEL = 'statichost_site_changed';

const PENDING = 'siteChanges';
/** The transaction's backend pid (pg_backend_pid()), which PostgreSQL names in the notices it sent. */
const BACKEND_PID = 'siteChangesBackendPid';
/** Set once COMMIT is about to be sent. */
const COMMITTING = 'siteChangesCommitting';

/**
 * Announces that what a project's site serves changed (deploy, promote, archive,
 * gate, domain, delete): `ProjectsService.notifySiteChanged`. Sent inside the caller's
 * transaction: PostgreSQL delivers it to every instance on commit and drops it on
 * rollback, so no instance ever sees a change that did not happen. The change is also
 * remembered on the transaction (here) so this instance can drop its own cache
 * synchronously at commit (see `siteChangesOnCommit`), before the response that
 * reports the change is sent, and so the names the project had are purged too (see
 * siteChangesBeforeCommit).
 */
export function rememberSiteChange(
  manager: EntityManager,
  projectId: string,
  row: { slug: string | null; custom_domain: string | null; backend_pid?: number } | undefined,
): void {
  const runner = manager.queryRunner;
  if (!runner) return;
  if (row?.backend_pid !== undefined) runner.data[BACKEND_PID] = row.backend_pid;
  const pending = (runner.data[PENDING] ??= new Map<string, SiteNames>()) as Map<string, SiteNames>;
  const names = pending.get(projectId) ?? { slugs: new Set<string>(), domains: new Set<string>(), labels: new Set<string>() };
  if (row?.slug) names.slugs.add(row.slug);
  if (row?.custom_domain) names.domains.add(row.custom_domain);
  pending.set(projectId, names);
}

/**
 * Also names a preview alias's label (issue 29) among the hosts the change touched, so
 * the purge webhook names `<label>.<SITES_DOMAIN>` too. Call beside notifySiteChanged.
 */
export function rememberAliasChange(manager: EntityManager, projectId: string, label: string): void {
  rememberSiteChange(manager, projectId, undefined);
  const names = (manager.queryRunner?.data[PENDING] as Map<string, SiteNames> | undefined)?.get(projectId);
  names?.labels.add(label);
}

/** Every slug and custom domain a project had during a transaction that changed its site. */
export interface SiteNames {
  slugs: Set<string>;
  domains: Set<string>;
  /** Other labels under SITES_DOMAIN that changed: preview aliases (`<branch>--<slug>`). */
  labels: Set<string>;
}

const pendingOf = (runner: QueryRunner) => runner.data?.[PENDING] as Map<string, SiteNames> | undefined;

/** How a notice is recognised when PostgreSQL delivers it back: the sending backend and the payload. */
export const noticeKey = (backendPid: number, projectId: string): string => `${backendPid} ${projectId}`;

/** The notices a transaction sent (PostgreSQL delivers one per project however often it was sent). */
function noticesOf(runner: QueryRunner, pending: Map<string, SiteNames>): string[] {
  const pid = runner.data?.[BACKEND_PID] as number | undefined;
  return pid === undefined ? [] : [...pending.keys()].map((projectId) => noticeKey(pid, projectId));
}

/**
 * What the instance that committed a site change does with it (SiteCacheService).
 * `notices` are the `noticeKey`s of the notices that will come back to its listener.
 */
export interface SiteChangeHooks {
  /** Before COMMIT is sent: the notices may come back from here on. */
  sending(notices: string[]): void;
  /** After the commit: the projects the transaction changed, and its notices. */
  committed(projectIds: string[], notices: string[]): void;
  /**
   * COMMIT was sent and then the transaction was rolled back: most likely its notices
   * never come, but a connection lost after the server committed looks the same, so
   * the projects are dropped too.
   */
  failed(projectIds: string[], notices: string[]): void;
}

function forget(runner: QueryRunner): void {
  delete runner.data[PENDING];
  delete runner.data[BACKEND_PID];
  delete runner.data[COMMITTING];
}

/** A TypeORM subscriber calling the hooks for each transaction that changed a site. */
export function siteChangesOnCommit(hooks: SiteChangeHooks): EntitySubscriberInterface {
  return {
    beforeTransactionCommit: (event) => {
      const pending = pendingOf(event.queryRunner);
      if (!pending || transactionDepth(event.queryRunner) > 1) return;
      event.queryRunner.data[COMMITTING] = true;
      hooks.sending(noticesOf(event.queryRunner, pending));
    },
    afterTransactionCommit: (event) => {
      const pending = pendingOf(event.queryRunner);
      // After a savepoint's release the transaction is still open: wait for the real commit.
      if (!pending || event.queryRunner.isTransactionActive) return;
      const notices = noticesOf(event.queryRunner, pending);
      forget(event.queryRunner);
      hooks.committed([...pending.keys()], notices);
    },
    afterTransactionRollback: (event) => {
      const pending = pendingOf(event.queryRunner);
      if (!pending || event.queryRunner.isTransactionActive) return;
      if (event.queryRunner.data[COMMITTING]) hooks.failed([...pending.keys()], noticesOf(event.queryRunner, pending));
      forget(event.queryRunner);
    },
  };
}

/**
 * A subscriber that writes, inside the committing transaction, whatever must leave the
 * database because of the changes (the purge webhook's outbox messages): they then
 * exist exactly when the changes do.
 */
export function siteChangesBeforeCommit(write: (manager: EntityManager, changes: Map<string, SiteNames>) => Promise<void>): EntitySubscriberInterface {
  return {
    beforeTransactionCommit: (event) => {
      const pending = pendingOf(event.queryRunner);
      if (!pending || transactionDepth(event.queryRunner) > 1) return;
      return write(event.manager, pending);
    },
  };
}
