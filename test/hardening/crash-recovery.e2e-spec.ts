import { setTimeout as sleep } from 'node:timers/promises';
import { NO_FREE_QUOTAS, startTestApp, TestApp } from '../helpers/app';
import { createApiToken, registerUser } from '../helpers/identity';
import { freePort } from '../helpers/ports';
import { AppProcess, startAppProcess } from './app-process-helper';

/**
 * An instance dies (SIGKILL) in the middle of a request; another instance on the same
 * database and data directory carries on.
 */
describe('Crash recovery (e2e)', () => {
  let t: TestApp;
  let token: string;
  let proc: AppProcess | undefined;

  beforeAll(async () => {
    t = await startTestApp();
    const owner = await registerUser(t);
    ({ token } = await createApiToken(t, owner, { scopes: ['deploy', 'read'] }));
  }, 60_000);
  afterAll(async () => {
    await proc?.crash();
    await t?.close();
  });

  const startSibling = async () =>
    (proc = await startAppProcess({ DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir, PORT: String(await freePort()), PLANS_JSON: NO_FREE_QUOTAS }));

  describe('an Idempotency-Key deploy killed as it finishes', () => {
    const body = { project_slug: 'crashy', files: [{ path: 'index.html', content: '<h1>once</h1>' }] };
    const deploymentsOf = async (slug: string): Promise<{ id: string; version: number }[]> =>
      t.dataSource.query('SELECT d.id, d.version FROM deployments d JOIN projects p ON p.id = d.project_id WHERE p.slug = $1 ORDER BY d.version', [slug]);

    afterEach(async () => {
      await t.dataSource.query('DROP TRIGGER IF EXISTS hold_completion ON idempotency_keys');
      await t.dataSource.query('DROP FUNCTION IF EXISTS hold_completion()');
    });

    it('is deployed once: the retry after the takeover window gets the deployment, not a second one', async () => {
      // Recording the response hangs, so the process can be killed right there: after
      // the deploy's own work, before (or while) the key is marked complete.
      await t.dataSource.query(`CREATE FUNCTION hold_completion() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(120); RETURN NEW; END $$`);
      await t.dataSource.query(`CREATE TRIGGER hold_completion BEFORE UPDATE ON idempotency_keys
        FOR EACH ROW WHEN (NEW.response_status IS NOT NULL) EXECUTE FUNCTION hold_completion()`);
      const sibling = await startSibling();
      const first = fetch(`${sibling.baseUrl}/v1/deployments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'crash-1' },
        body: JSON.stringify(body),
      }).catch(() => 'connection lost');

      let held: { pid: number }[] = [];
      for (let i = 0; i < 300 && held.length === 0; i++) {
        await sleep(100);
        held = await t.dataSource.query(`SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query ILIKE '%idempotency_keys%'`);
      }
      expect(held).toHaveLength(1);

      // The crash: the process goes, and with it its database session.
      await sibling.crash();
      await t.dataSource.query('SELECT pg_terminate_backend($1)', [held[0].pid]);
      expect(await first).toBe('connection lost');
      await t.dataSource.query('DROP TRIGGER hold_completion ON idempotency_keys');
      const before = await deploymentsOf('crashy');

      // Past the 5-minute takeover window, the client retries with the same key.
      await t.dataSource.query(`UPDATE idempotency_keys SET created_at = created_at - interval '10 minutes' WHERE key = 'crash-1'`);
      const retry = await t.http().post('/v1/deployments').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', 'crash-1').send(body);
      expect([200, 201]).toContain(retry.status);

      const after = await deploymentsOf('crashy');
      expect(after).toHaveLength(1);
      expect(retry.body.id).toBe(after[0].id);
      // Whatever committed before the crash is what the retry answers with.
      if (before.length > 0) expect(before).toEqual(after);
      // And the key now replays it.
      const again = await t.http().post('/v1/deployments').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', 'crash-1').send(body).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.id).toBe(after[0].id);
    }, 180_000);
  });
});
