import type { EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';

/** The PostgreSQL channel every instance LISTENs on to drop cached site state. */
export const SITE_CHANGED_CHANNEL = 'statichost_site_changed';

const PENDING = 'siteChanges';

/**
 * Announces that what a project's site serves changed (deploy, promote, archive,
 * gate, domain, delete). Sent inside the caller's transaction: PostgreSQL delivers
 * it to every instance on commit and drops it on rollback, so no instance ever sees
 * a change that did not happen. The change is also remembered on the transaction so
 * this instance can drop its own cache synchronously at commit (see
 * `siteChangesOnCommit`), before the response that reports the change is sent.
 */
export async function notifySiteChanged(manager: EntityManager, projectId: string): Promise<void> {
  await manager.query('SELECT pg_notify($1, $2)', [SITE_CHANGED_CHANNEL, projectId]);
  const runner = manager.queryRunner;
  if (runner) ((runner.data[PENDING] ??= new Set<string>()) as Set<string>).add(projectId);
}

/** A TypeORM subscriber calling `onChanged` for each project a committed transaction changed. */
export function siteChangesOnCommit(onChanged: (projectId: string) => void): EntitySubscriberInterface {
  const take = (runner: QueryRunner): Set<string> | undefined => {
    const pending = runner.data?.[PENDING] as Set<string> | undefined;
    if (pending) delete runner.data[PENDING];
    return pending;
  };
  return {
    afterTransactionCommit: (event) => take(event.queryRunner)?.forEach(onChanged),
    afterTransactionRollback: (event) => void take(event.queryRunner),
  };
}
