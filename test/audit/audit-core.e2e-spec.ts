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

  it('writes an account’s own event to each workspace the user belongs to', async () => {
    const user = await freshUser();
    await t.dataSource.transaction((m) => audit.recordForUser(m, user.userId, { action: 'user.signin_failed', actor: { type: 'user', id: user.userId } }));
    expect(await entries(user.workspaceId)).toEqual([expect.objectContaining({ action: 'user.signin_failed', actor_label: user.email })]);
  });
});
