import { type AuditChange, AuditLogService } from '../../src/audit/audit-log.service';
import { AuditRetentionJob } from '../../src/audit/audit-retention.job';
import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

/**
 * The audit log's read side (issue 32): GET /workspaces/:workspaceId/audit-log with its
 * filters, the CSV export, the chain's verify (and what editing, removing or swapping rows
 * in PostgreSQL does to it), and retention.
 */
describe('audit log: reading, exporting and verifying a workspace’s log', () => {
  let t: TestApp;
  let audit: AuditLogService;
  beforeAll(async () => {
    t = await startTestApp();
    audit = t.app.get(AuditLogService);
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  /** Entries written the way services write them: one transaction each. */
  async function write(workspaceId: string, ...changes: Omit<AuditChange, 'workspaceId'>[]): Promise<void> {
    for (const change of changes) await t.dataSource.transaction((m) => audit.record(m, { ...change, workspaceId }));
  }

  const log = (owner: UserSession, query = '') => t.http().get(`/workspaces/${owner.workspaceId}/audit-log${query}`).set(asUser(owner));
  const verify = (owner: UserSession) => t.http().get(`/workspaces/${owner.workspaceId}/audit-log/verify`).set(asUser(owner));

  /**
   * A new account whose workspace's log starts empty: sign-up writes `workspace.created`,
   * and the cases below count and number the entries they write themselves.
   */
  async function newOwner(): Promise<UserSession> {
    const owner = await registerUser(t);
    await t.dataSource.query('DELETE FROM audit_log WHERE workspace_id = $1', [owner.workspaceId]);
    await t.dataSource.query('DELETE FROM audit_heads WHERE workspace_id = $1', [owner.workspaceId]);
    return owner;
  }

  /** A workspace with five entries: seq 1 to 5. */
  async function fiveEntries(): Promise<UserSession> {
    const owner = await newOwner();
    const actor = { type: 'user' as const, id: owner.userId };
    await write(
      owner.workspaceId,
      { action: 'project.created', actor, target: { type: 'project', id: 'proj_a', label: 'alpha' }, changes: ['name'] },
      { action: 'project.updated', actor, target: { type: 'project', id: 'proj_a', label: 'alpha' }, changes: ['name', 'gateType'] },
      { action: 'token.created', actor, target: { type: 'token', id: 'tok_b', label: 'ci' } },
      { action: 'token.revoked', actor: { type: 'token', id: 'tok_b', label: 'ci' }, target: { type: 'token', id: 'tok_b', label: 'ci' } },
      { action: 'project.deleted', actor, target: { type: 'project', id: 'proj_a', label: 'alpha' } },
    );
    return owner;
  }

  describe('GET …/audit-log', () => {
    it('lists the entries newest first, with the actor, the target and the field names', async () => {
      const owner = await fiveEntries();
      const res = await log(owner);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1 });
      expect(res.body.data.map((e: { seq: number }) => e.seq)).toEqual([5, 4, 3, 2, 1]);
      expect(res.body.data[3]).toEqual({
        id: expect.stringMatching(/^aud_/),
        seq: 2,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        workspaceId: owner.workspaceId,
        actor: { type: 'user', id: owner.userId, label: owner.email },
        action: 'project.updated',
        target: { type: 'project', id: 'proj_a', label: 'alpha' },
        ip: null,
        userAgent: null,
        requestId: null,
        changes: ['gateType', 'name'],
      });
    });

    it('filters by an exact action, an action prefix, the actor, the target and the time, and pages', async () => {
      const owner = await fiveEntries();
      const actions = async (query: string) => {
        const res = await log(owner, query);
        expect(res.status).toBe(200);
        return res.body.data.map((e: { action: string }) => e.action);
      };
      expect(await actions('?action=project.updated')).toEqual(['project.updated']);
      expect(await actions('?action=project.')).toEqual(['project.deleted', 'project.updated', 'project.created']);
      // `_` is a LIKE wildcard; a prefix is compared literally.
      expect(await actions('?action=project_')).toEqual([]);
      expect(await actions('?actor=tok_b')).toEqual(['token.revoked']);
      expect(await actions('?target=tok_b')).toEqual(['token.revoked', 'token.created']);
      expect(await actions(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
      expect(await actions(`?to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&from=2020-01-01`)).toHaveLength(5);
      const second = await log(owner, '?limit=2&page=2');
      expect(second.body.meta).toEqual({ total: 5, page: 2, limit: 2, totalPages: 3 });
      expect(second.body.data.map((e: { seq: number }) => e.seq)).toEqual([3, 2]);
    });

    it('refuses filters it cannot read with a 400 naming them, and reads nothing', async () => {
      const owner = await newOwner();
      for (const [query, named] of [
        ['?action=Project.Deleted', 'action'],
        ['?action=project..deleted', 'action'],
        ['?from=yesterday', 'from'],
        ['?to=2026-13-45', 'to'],
        ['?from=2026-02-01&to=2026-01-01', 'from'],
        ['?limit=1000', 'limit'],
        [`?actor=${'x'.repeat(101)}`, 'actor'],
      ]) {
        const res = await log(owner, query);
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(JSON.stringify(res.body)).toContain(named);
      }
    });

    it('is for owners, admins and admin-scoped workspace-wide tokens; another workspace’s log is a 404', async () => {
      const owner = await fiveEntries();
      const admin = await registerUser(t);
      const viewer = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      await addMember(t, owner, viewer, 'viewer');
      expect((await log({ ...admin, workspaceId: owner.workspaceId })).status).toBe(200);
      expect((await log({ ...viewer, workspaceId: owner.workspaceId })).status).toBe(403);

      const adminToken = await createApiToken(t, owner, { scopes: ['admin'] });
      const readToken = await createApiToken(t, owner, { scopes: ['read'] });
      const url = `/workspaces/${owner.workspaceId}/audit-log`;
      const byToken = await t.http().get(url).set(bearer(adminToken.token));
      expect(byToken.status).toBe(200);
      expect(byToken.body.meta.total).toBeGreaterThanOrEqual(5);
      expect((await t.http().get(url).set(bearer(readToken.token))).status).toBe(403);

      const stranger = await registerUser(t);
      const other = await t.http().get(url).set(asUser(stranger, owner.workspaceId));
      expect([403, 404]).toContain(other.status);
      expect(JSON.stringify(other.body)).not.toContain('project.deleted');
      // A token of another workspace naming this one.
      const strangerToken = await createApiToken(t, stranger, { scopes: ['admin'] });
      const crossed = await t.http().get(url).set(bearer(strangerToken.token));
      expect([403, 404]).toContain(crossed.status);
      expect(JSON.stringify(crossed.body)).not.toContain('project.deleted');
    });
  });

  describe('GET …/audit-log/export', () => {
    it('streams every matching entry as CSV with a header row, newest first, with formula-like cells defused', async () => {
      const owner = await newOwner();
      const actor = { type: 'user' as const, id: owner.userId };
      await write(
        owner.workspaceId,
        { action: 'project.created', actor, target: { type: 'project', id: 'proj_x', label: '=HYPERLINK("http://evil.test","click")' } },
        { action: 'token.created', actor, target: { type: 'token', id: 'tok_y', label: 'deploy, "ci"' }, changes: ['name', 'scopes'] },
      );
      const res = await t.http().get(`/workspaces/${owner.workspaceId}/audit-log/export`).set(asUser(owner)).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${owner.workspaceId}-audit-log.csv"`);
      const lines = res.text.split('\r\n');
      expect(lines[0]).toBe('seq,id,at,actorType,actorId,actorLabel,action,targetType,targetId,targetLabel,ip,userAgent,requestId,changes');
      expect(lines[1]).toMatch(
        new RegExp(`^2,aud_\\w+,[^,]+,user,${owner.userId},${owner.email},token\\.created,token,tok_y,"deploy, ""ci""",,,,name scopes$`),
      );
      expect(lines[2]).toContain(`,project,proj_x,"'=HYPERLINK(""http://evil.test"",""click"")",`);
      expect(lines[3]).toBe('');
      expect(lines).toHaveLength(4);

      const filtered = await t.http().get(`/workspaces/${owner.workspaceId}/audit-log/export?action=project.`).set(asUser(owner)).buffer(true);
      expect(filtered.text.split('\r\n').filter(Boolean)).toHaveLength(2);
    });

    it('reads a log longer than one batch whole', async () => {
      const owner = await newOwner();
      await t.dataSource.transaction(async (m) => {
        for (let i = 0; i < 1203; i++)
          await audit.record(m, { workspaceId: owner.workspaceId, action: 'deployment.created', target: { type: 'deployment', id: `dep_${i}` } });
      });
      const res = await t.http().get(`/workspaces/${owner.workspaceId}/audit-log/export`).set(asUser(owner)).buffer(true);
      const rows = res.text.split('\r\n').filter(Boolean).slice(1);
      expect(rows).toHaveLength(1203);
      expect(rows.map((r) => Number(r.split(',')[0]))).toEqual(Array.from({ length: 1203 }, (_, i) => 1203 - i));
      const check = await verify(owner);
      expect(check.body).toMatchObject({ ok: true, entries: 1203, firstBroken: null });
    });
  });

  describe('GET …/audit-log/verify: the hash chain', () => {
    const rows = (workspaceId: string): Promise<{ id: string; seq: number; hash: string }[]> =>
      t.dataSource.query('SELECT id, seq::int, hash FROM audit_log WHERE workspace_id = $1 ORDER BY seq', [workspaceId]);

    it('reports an intact chain with its entries and its head’s hash', async () => {
      const owner = await fiveEntries();
      const res = await verify(owner);
      expect(res.status).toBe(200);
      const all = await rows(owner.workspaceId);
      expect(res.body).toEqual({ ok: true, entries: 5, headHash: all[4].hash, firstBroken: null });
    });

    it('an empty log is intact and has no head', async () => {
      const owner = await newOwner();
      expect((await verify(owner)).body).toEqual({ ok: true, entries: 0, headHash: null, firstBroken: null });
    });

    it('names the entry edited in PostgreSQL', async () => {
      const owner = await fiveEntries();
      const all = await rows(owner.workspaceId);
      await t.dataSource.query(`UPDATE audit_log SET actor_label = 'someone-else@example.test' WHERE id = $1`, [all[2].id]);
      expect((await verify(owner)).body).toEqual({
        ok: false,
        entries: 5,
        headHash: all[4].hash,
        firstBroken: { seq: 3, id: all[2].id, reason: 'hash_mismatch' },
      });
    });

    it('an edit whose hash is recomputed breaks the link to the next entry', async () => {
      const owner = await fiveEntries();
      const all = await rows(owner.workspaceId);
      await t.dataSource.query(
        `UPDATE audit_log SET action = 'project.renamed',
           hash = audit_entry_hash(prev_hash, id, workspace_id, seq, at, actor_type, actor_id, actor_label, 'project.renamed', target_type,
                                   target_id, target_label, ip, user_agent, request_id, changes)
         WHERE id = $1`,
        [all[1].id],
      );
      expect((await verify(owner)).body.firstBroken).toEqual({ seq: 3, id: all[2].id, reason: 'prev_hash_mismatch' });
    });

    it('names the place of a deleted entry, in the middle or at the end', async () => {
      const middle = await fiveEntries();
      const inMiddle = await rows(middle.workspaceId);
      await t.dataSource.query('DELETE FROM audit_log WHERE id = $1', [inMiddle[1].id]);
      expect((await verify(middle)).body).toMatchObject({ ok: false, entries: 4, firstBroken: { seq: 2, id: null, reason: 'missing' } });

      const end = await fiveEntries();
      const atEnd = await rows(end.workspaceId);
      await t.dataSource.query('DELETE FROM audit_log WHERE id = $1', [atEnd[4].id]);
      expect((await verify(end)).body).toMatchObject({ ok: false, entries: 4, firstBroken: { seq: 5, id: null, reason: 'missing' } });
    });

    it('notices two entries’ hashes swapped', async () => {
      const owner = await fiveEntries();
      const all = await rows(owner.workspaceId);
      await t.dataSource.query(`UPDATE audit_log SET hash = CASE id WHEN $1 THEN $4 ELSE $3 END WHERE id IN ($1, $2)`, [
        all[1].id,
        all[2].id,
        all[1].hash,
        all[2].hash,
      ]);
      expect((await verify(owner)).body.firstBroken).toEqual({ seq: 2, id: all[1].id, reason: 'hash_mismatch' });
    });

    it('notices a whole entry, hash and all, forged at the end of the chain past its recorded head', async () => {
      const owner = await fiveEntries();
      await t.dataSource.query(
        `INSERT INTO audit_log (id, workspace_id, seq, at, actor_type, actor_id, actor_label, action, changes, prev_hash, hash)
         SELECT 'aud_forged', workspace_id, 6, at, 'system', NULL, 'system', 'project.created', '[]', hash,
                audit_entry_hash(hash, 'aud_forged', workspace_id, 6, at, 'system', NULL, 'system', 'project.created', NULL, NULL, NULL, NULL, NULL, NULL, '[]')
         FROM audit_log WHERE workspace_id = $1 AND seq = 5`,
        [owner.workspaceId],
      );
      expect((await verify(owner)).body).toMatchObject({ ok: false, entries: 6, firstBroken: { seq: 6, id: 'aud_forged', reason: 'head_mismatch' } });
    });

    it('is for owners and admins like the list', async () => {
      const owner = await fiveEntries();
      const viewer = await registerUser(t);
      await addMember(t, owner, viewer, 'viewer');
      expect((await verify({ ...viewer, workspaceId: owner.workspaceId })).status).toBe(403);
    });
  });

  describe('retention (AUDIT_RETENTION_DAYS)', () => {
    it('removes entries past the retention, and verify still checks the rest of the chain from where it was cut', async () => {
      const owner = await newOwner();
      const clock = t.app.get(Clock);
      const at = (iso: string) => jest.spyOn(clock, 'now').mockImplementation(() => new Date(iso));
      at('2020-01-01T00:00:00.000Z');
      await write(owner.workspaceId, { action: 'project.created' }, { action: 'project.updated' });
      jest.restoreAllMocks();
      await write(owner.workspaceId, { action: 'project.deleted' }, { action: 'token.created' });

      const report = await t.app.get(AuditRetentionJob).runOnce();
      expect(report.ran).toBe(true);
      expect(report.removed).toBeGreaterThanOrEqual(2);
      const left = await log(owner);
      expect(left.body.data.map((e: { action: string }) => e.action)).toEqual(['token.created', 'project.deleted']);
      expect((await verify(owner)).body).toMatchObject({ ok: true, entries: 2, firstBroken: null });

      // What retention did not remove is still guarded: the oldest remaining entry removed by hand is a break.
      await t.dataSource.query('DELETE FROM audit_log WHERE workspace_id = $1 AND seq = 3', [owner.workspaceId]);
      expect((await verify(owner)).body.firstBroken).toEqual({ seq: 3, id: null, reason: 'missing' });
    });

    it('keeps entries younger than the retention', async () => {
      const owner = await newOwner();
      await write(owner.workspaceId, { action: 'project.created' });
      await t.app.get(AuditRetentionJob).runOnce();
      expect((await log(owner)).body.meta.total).toBe(1);
    });
  });
});
