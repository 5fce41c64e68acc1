import type { EntityManager, QueryRunner, TransactionCommitEvent } from 'typeorm';

import { noticeKey, rememberSiteChange, type SiteChangeHooks, siteChangesOnCommit } from './site-events';

/** A query runner as TypeORM hands it to subscribers: only what site-events reads, writable. */
interface FakeRunner {
  data: Record<string, unknown>;
  isTransactionActive: boolean;
  transactionDepth: number;
}

function runner(): FakeRunner {
  return { data: {}, isTransactionActive: true, transactionDepth: 1 };
}

function recorder() {
  const calls: [string, string[], string[]?][] = [];
  const hooks: SiteChangeHooks = {
    sending: (notices) => calls.push(['sending', notices]),
    committed: (projectIds, notices) => calls.push(['committed', projectIds, notices]),
    failed: (projectIds, notices) => calls.push(['failed', projectIds, notices]),
  };
  return { calls, subscriber: siteChangesOnCommit(hooks) };
}

const event = (queryRunner: FakeRunner) => ({ queryRunner: queryRunner as unknown as QueryRunner }) as TransactionCommitEvent;

function changeIn(queryRunner: FakeRunner, projectId: string, backendPid?: number) {
  rememberSiteChange({ queryRunner } as unknown as EntityManager, projectId, { slug: 's', custom_domain: null, backend_pid: backendPid });
}

describe('siteChangesOnCommit', () => {
  it('names the notices before COMMIT and the projects with them after it', async () => {
    const { calls, subscriber } = recorder();
    const r = runner();
    changeIn(r, 'proj_a', 41);
    changeIn(r, 'proj_b', 41);
    changeIn(r, 'proj_a', 41);
    await subscriber.beforeTransactionCommit!(event(r));
    r.isTransactionActive = false;
    await subscriber.afterTransactionCommit!(event(r));
    const notices = [noticeKey(41, 'proj_a'), noticeKey(41, 'proj_b')];
    expect(calls).toEqual([
      ['sending', notices],
      ['committed', ['proj_a', 'proj_b'], notices],
    ]);
    // The runner is reused by the pool: nothing of this transaction is left on it.
    expect(r.data).toEqual({});
  });

  it('waits for the real commit, not a savepoint release', async () => {
    const { calls, subscriber } = recorder();
    const r = runner();
    changeIn(r, 'proj_a', 7);
    r.transactionDepth = 2;
    await subscriber.beforeTransactionCommit!(event(r));
    r.transactionDepth = 1;
    await subscriber.afterTransactionCommit!(event(r));
    expect(calls).toEqual([]);
  });

  it('reports a rollback after COMMIT was sent as failed, and one before it not at all', async () => {
    const sent = recorder();
    const r1 = runner();
    changeIn(r1, 'proj_a', 9);
    await sent.subscriber.beforeTransactionCommit!(event(r1));
    r1.isTransactionActive = false;
    await sent.subscriber.afterTransactionRollback!(event(r1));
    expect(sent.calls).toEqual([
      ['sending', [noticeKey(9, 'proj_a')]],
      ['failed', ['proj_a'], [noticeKey(9, 'proj_a')]],
    ]);

    const early = recorder();
    const r2 = runner();
    changeIn(r2, 'proj_a', 9);
    r2.isTransactionActive = false;
    await early.subscriber.afterTransactionRollback!(event(r2));
    expect(early.calls).toEqual([]);
    expect(r2.data).toEqual({});
  });

  it('names no notice when the backend is unknown (the projects are still reported)', async () => {
    const { calls, subscriber } = recorder();
    const r = runner();
    changeIn(r, 'proj_a');
    await subscriber.beforeTransactionCommit!(event(r));
    r.isTransactionActive = false;
    await subscriber.afterTransactionCommit!(event(r));
    expect(calls).toEqual([
      ['sending', []],
      ['committed', ['proj_a'], []],
    ]);
  });
});
