import { mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { TempFileSweeper } from '../../src/storage/temp-file-sweeper.service';
import { NO_FREE_QUOTAS, startTestApp, type TestApp } from '../helpers/app';
import { createApiToken, registerUser } from '../helpers/identity';
import { freePort } from '../helpers/ports';
import { deploySite } from '../helpers/sites';
import { type AppProcess, startAppProcess } from './app-process-helper';

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

    /**
     * A deploy sent to a sibling process with `key`, held while its response is recorded
     * (after the deploy's own work, before or while the key is marked complete), so the
     * process can be killed right there. `crash()` kills it and its database session.
     */
    async function heldDeploy(key: string, deploy: object) {
      await t.dataSource.query(`CREATE FUNCTION hold_completion() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(120); RETURN NEW; END $$`);
      await t.dataSource.query(`CREATE TRIGGER hold_completion BEFORE UPDATE ON idempotency_keys
        FOR EACH ROW WHEN (NEW.response_status IS NOT NULL) EXECUTE FUNCTION hold_completion()`);
      const sibling = await startSibling();
      const first = fetch(`${sibling.baseUrl}/v1/deployments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(deploy),
      }).catch(() => 'connection lost');
      let held: { pid: number }[] = [];
      for (let i = 0; i < 300 && held.length === 0; i++) {
        await sleep(100);
        held = await t.dataSource.query(`SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query ILIKE '%idempotency_keys%'`);
      }
      expect(held).toHaveLength(1);
      return {
        async crash(): Promise<void> {
          await sibling.crash();
          await t.dataSource.query('SELECT pg_terminate_backend($1)', [held[0].pid]);
          expect(await first).toBe('connection lost');
          await t.dataSource.query('DROP TRIGGER hold_completion ON idempotency_keys');
        },
      };
    }

    it('is deployed once: the retry after the takeover window gets the deployment, not a second one', async () => {
      const held = await heldDeploy('crash-1', body);
      // The crash: the process goes, and with it its database session.
      await held.crash();
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

    it('is taken over at once when the instance holding the key is gone: the retry deploys it, once', async () => {
      const key = 'crash-2';
      const again = { ...body, project_slug: 'crashy-2' };
      const post = () => t.http().post('/v1/deployments').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', key).send(again);
      const held = await heldDeploy(key, again);

      // While its instance lives, the key is that request's: a retry elsewhere waits.
      const early = await post();
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('idempotency_key_in_progress');

      await held.crash();

      // No 5-minute wait: the claimant is gone, so the retry takes the key over (a few
      // tries: PostgreSQL ends the dead process's sessions as it notices their sockets close).
      let retry = await post();
      for (let i = 0; i < 20 && retry.status === 409; i++) {
        await sleep(250);
        retry = await post();
      }
      expect(retry.status).toBe(201);
      const deployed = await deploymentsOf('crashy-2');
      expect(deployed).toHaveLength(1);
      expect(retry.body.id).toBe(deployed[0].id);
    }, 180_000);
  });

  describe('leftovers of interrupted writes', () => {
    const hourAgo = () => new Date(Date.now() - 60 * 60 * 1000);
    async function leave(dir: string, name: string, stale: boolean): Promise<void> {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, name), 'half-written');
      if (stale) await utimes(join(dir, name), hourAgo(), hourAgo());
    }
    const tmpDir = () => join(t.dataDir, 'objects', '.tmp');
    const spoolDir = () => join(t.dataDir, 'uploads');
    const waitFor = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await check()); i++) await sleep(100);
      return check();
    };

    it('are removed when an instance starts, sparing recent files (a live instance may be writing them)', async () => {
      await leave(tmpDir(), 'crashed-object', true);
      await leave(spoolDir(), 'crashed-upload.part', true);
      await leave(tmpDir(), 'live-object', false);
      await leave(spoolDir(), 'live-upload.part', false);
      const sibling = await startTestApp({ sibling: t });
      try {
        expect(await waitFor(async () => !(await readdir(spoolDir())).includes('crashed-upload.part'))).toBe(true);
        expect(await waitFor(async () => !(await readdir(tmpDir())).includes('crashed-object'))).toBe(true);
        expect(await readdir(tmpDir())).toContain('live-object');
        expect(await readdir(spoolDir())).toContain('live-upload.part');
      } finally {
        await sibling.close();
      }
    }, 60_000);

    it('are removed by the periodic sweep too', async () => {
      await leave(tmpDir(), 'later-crash', true);
      await leave(spoolDir(), 'later-crash.part', true);
      expect(await t.app.get(TempFileSweeper).runOnce()).toBeGreaterThanOrEqual(2);
      expect(await readdir(tmpDir())).not.toContain('later-crash');
      expect(await readdir(spoolDir())).not.toContain('later-crash.part');
    });

    it('temp objects are private to the service (0600), and so the stored objects', async () => {
      await deploySite(t, token, 'modes', [{ path: 'index.html', content: `mode check ${Date.now()}` }]);
      const [row] = await t.dataSource.query(
        `SELECT f.sha256 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id JOIN projects p ON p.id = d.project_id WHERE p.slug = 'modes'`,
      );
      const files = await findFiles(join(t.dataDir, 'objects'), row.sha256);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect([f, ((await stat(f)).mode & 0o777).toString(8)]).toEqual([f, '600']);
    });
  });
});

async function findFiles(dir: string, nameContains: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await findFiles(path, nameContains)));
    else if (path.includes(nameContains)) found.push(path);
  }
  return found;
}
