import { AuditLogService } from '../../src/audit/audit-log.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { registerUser } from '../helpers/identity';

/**
 * The writing half of the audit log (issue 32): entries chain per workspace, are written
 * only with the transaction that carries them, and a concurrent writer of the same
 * workspace waits for the chain's head instead of forking it.
 */
describe('audit log: writing entries', () => {
  let t: TestApp;
  let audit: AuditLogService;
  beforeAll(async () => {
    t = await startTestApp();
    audit = t.app.get(AuditLogService);
  });
  afterAll(() => t.close());

  /** A new account whose workspace's log is empty: sign-up's own entry (workspace.created) is removed, so each test sees only what it writes. */
  async function freshUser() {
    const user = await registerUser(t);
    await t.dataSource.query('DELETE FROM audit_log WHERE workspace_id = $1', [user.workspaceId]);
    await t.dataSource.query('DELETE FROM audit_heads WHERE workspace_id = $1', [user.workspaceId]);
    return user;
  }

  const entries = (workspaceId: string) =>
    t.dataSource.query(
      `SELECT seq::int, action, actor_type, actor_id, actor_label, target_id, changes, prev_hash, hash,
              audit_entry_hash(prev_hash, id, workspace_id, seq, at, actor_type, actor_id, actor_label, action, target_type,
                               target_id, target_label, ip, user_agent, request_id, changes) AS recomputed
         FROM audit_log WHERE workspace_id = $1 ORDER BY seq`,
      [workspaceId],
    );

  it('chains each workspace’s entries, reads the user’s email as the label, and keeps field names sorted and unique', async () => {
    const user = await freshUser();
    const actor = { type: 'user' as const, id: user.userId };
    await t.dataSource.transaction((m) =>
      audit.record(m, {
        workspaceId: user.workspaceId,
        action: 'project.updated',
        actor,
        target: { type: 'project', id: 'proj_x' },
        changes: ['name', 'gate_type', 'name'],
      }),
    );
    await t.dataSource.transaction((m) => audit.record(m, { workspaceId: user.workspaceId, action: 'project.deleted', actor }));
    const rows = await entries(user.workspaceId);
    expect(rows.map((r: { seq: number }) => r.seq)).toEqual([1, 2]);
    expect(rows[0]).toMatchObject({
      action: 'project.updated',
      actor_type: 'user',
      actor_id: user.userId,
      actor_label: user.email,
      changes: ['gate_type', 'name'],
      prev_hash: '',
    });
    expect(rows[1].prev_hash).toBe(rows[0].hash);
    for (const row of rows) expect(row.recomputed).toBe(row.hash);
  });

  it('writes nothing for a change that rolls back', async () => {
    const user = await freshUser();
    await expect(
      t.dataSource.transaction(async (m) => {
        await audit.record(m, { workspaceId: user.workspaceId, action: 'project.deleted' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await entries(user.workspaceId)).toEqual([]);
    const [head] = await t.dataSource.query('SELECT count(*)::int AS n FROM audit_heads WHERE workspace_id = $1', [user.workspaceId]);
    expect(head.n).toBe(0);
  });

  it('gives concurrent writers of one workspace consecutive places in the chain', async () => {
    const user = await freshUser();
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.dataSource.transaction((m) => audit.record(m, { workspaceId: user.workspaceId, action: 'token.created', target: { type: 'token', id: `tok_${i}` } })),
      ),
    );
    const rows = await entries(user.workspaceId);
    expect(rows.map((r: { seq: number }) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (let i = 1; i < rows.length; i++) expect(rows[i].prev_hash).toBe(rows[i - 1].hash);
    expect(rows[0]).toMatchObject({ actor_type: 'system', actor_label: 'system' });
  });

  it('writes a transaction’s entries when it commits, in workspace order: two that record two workspaces in opposite orders both commit', async () => {
    const [low, high] = [(await freshUser()).workspaceId, (await freshUser()).workspaceId].sort();
    const first = t.dataSource.createQueryRunner();
    const second = t.dataSource.createQueryRunner();
    for (const r of [first, second]) {
      await r.connect();
      await r.startTransaction();
    }
    const entry = (workspaceId: string, target: string) => ({ workspaceId, action: 'project.updated', target: { type: 'project', id: target } });
    try {
      // Written where recorded, each entry held its workspace's chain to the commit: the
      // second record of each transaction waited for the other's, and PostgreSQL ended one.
      await audit.record(first.manager, entry(high, 'proj_first_1'));
      await audit.record(second.manager, entry(low, 'proj_second_1'));
      await Promise.all([audit.record(first.manager, entry(low, 'proj_first_2')), audit.record(second.manager, entry(high, 'proj_second_2'))]);
      // Nothing written before the commit.
      expect(await t.dataSource.query('SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = ANY($1)', [[low, high]])).toEqual([{ n: 0 }]);
      await Promise.all([first.commitTransaction(), second.commitTransaction()]);
    } finally {
      for (const r of [first, second]) {
        if (r.isTransactionActive) await r.rollbackTransaction();
        await r.release();
      }
    }
    for (const workspaceId of [low, high]) {
      const rows = await entries(workspaceId);
      expect(rows.map((r: { seq: number }) => r.seq)).toEqual([1, 2]);
      for (const row of rows) expect(row.recomputed).toBe(row.hash);
    }
  });

  it('keeps the order a transaction recorded a workspace’s entries in, and forgets a rolled-back one’s', async () => {
    const user = await freshUser();
    await t.dataSource.transaction(async (m) => {
      for (const id of ['proj_a', 'proj_b', 'proj_c'])
        await audit.record(m, { workspaceId: user.workspaceId, action: 'project.updated', target: { type: 'project', id } });
    });
    await t.dataSource
      .transaction(async (m) => {
        await audit.record(m, { workspaceId: user.workspaceId, action: 'project.deleted', target: { type: 'project', id: 'proj_d' } });
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    await t.dataSource.transaction((m) =>
      audit.record(m, { workspaceId: user.workspaceId, action: 'project.updated', target: { type: 'project', id: 'proj_e' } }),
    );
    expect((await entries(user.workspaceId)).map((r: { target_id: string }) => r.target_id)).toEqual(['proj_a', 'proj_b', 'proj_c', 'proj_e']);
  });

  it('writes no entry of a transaction rolled back while its entries were being written (another commit hook failed)', async () => {
    const user = await freshUser();
    // TypeORM runs every commit hook at once: this one fails while the entries are being written.
    const failing = { beforeTransactionCommit: () => new Promise<void>((_, reject) => setTimeout(() => reject(new Error('another hook failed')), 5)) };
    t.dataSource.subscribers.push(failing);
    try {
      await expect(
        t.dataSource.transaction(async (m) => {
          for (let i = 0; i < 300; i++)
            await audit.record(m, { workspaceId: user.workspaceId, action: 'project.updated', target: { type: 'project', id: `proj_${i}` } });
        }),
      ).rejects.toThrow('another hook failed');
    } finally {
      t.dataSource.subscribers.splice(t.dataSource.subscribers.indexOf(failing), 1);
    }
    // What was still going on has had its time: nothing was written after the ROLLBACK either.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await entries(user.workspaceId)).toEqual([]);
  });

  it('writes an account’s own event to each workspace the user belongs to', async () => {
    const user = await freshUser();
    await t.dataSource.transaction((m) => audit.recordForUser(m, user.userId, { action: 'user.signin_failed', actor: { type: 'user', id: user.userId } }));
    expect(await entries(user.workspaceId)).toEqual([expect.objectContaining({ action: 'user.signin_failed', actor_label: user.email })]);
  });
});
