import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { freePort } from '../../src/common/free-port';
import { alive, type AppProcess, httpGet, httpPost, killGroup, ROOT, spawnApp, stopApp, until, waitHealthy } from './app-process';

/**
 * The embedded default as `npm start` runs it: the real app as a child process, with its
 * own DATA_DIR and EMBEDDED_POSTGRES_PORT, killed the ways real deployments get killed.
 */
describe('Embedded PostgreSQL (e2e, real processes)', () => {
  const asRoot = process.getuid?.() === 0;
  const started: AppProcess[] = [];
  const dirs: string[] = [];
  /** Root-owned and enterable by all, like the default /var/lib/statichost, but per test run. */
  let runtimeDir: string;

  beforeAll(async () => {
    runtimeDir = await mkdtemp(join(tmpdir(), 'statichost-pg-runtime-'));
    await chmod(runtimeDir, 0o755);
    dirs.push(runtimeDir);
  });

  afterAll(async () => {
    for (const app of started) await stopApp(app);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A DATA_DIR in a directory anyone can enter (mkdtemp makes 0700 ones). */
  async function openDataDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'statichost-pg-e2e-'));
    await chmod(dir, 0o755);
    dirs.push(dir);
    return join(dir, 'data');
  }

  async function start(env: Record<string, string>, extra: { cwd?: string; preserveSymlinks?: boolean } = {}): Promise<AppProcess> {
    const app = await spawnApp({ env: { EMBEDDED_POSTGRES_RUNTIME_DIR: runtimeDir, ...env }, ...extra });
    started.push(app);
    return app;
  }

  const postmasterPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

  async function register(app: AppProcess): Promise<{ accessToken: string; workspaceId: string; email: string }> {
    const email = `pg-${Date.now()}-${Math.random().toString(16).slice(2)}@example.test`;
    const res = await httpPost(`${app.url}/auth/register`, {}, { email, password: 'correct horse battery staple', name: 'Pg' });
    expect(res.status).toBe(201);
    return { accessToken: res.json.accessToken, workspaceId: res.json.workspace.id, email };
  }

  (asRoot ? it : it.skip)(
    'starts as root from a checkout in a directory other users cannot enter',
    async () => {
      // A checkout in a 0700 directory (like /root/statichost): its node_modules and ./data
      // are reachable by root only. The checkout links to this one's files, and
      // --preserve-symlinks keeps the linked paths, so the binaries are found *through the
      // 0700 directory* exactly as in a real clone there.
      const closed = await mkdtemp(join(tmpdir(), 'statichost-closed-'));
      dirs.push(closed);
      const checkout = join(closed, 'statichost');
      await mkdir(checkout);
      for (const name of ['src', 'packages', 'node_modules', 'package.json', 'tsconfig.json', '.swcrc']) await symlink(join(ROOT, name), join(checkout, name));
      const dataDir = join(checkout, 'data');

      const pgPort = await freePort();
      const app = await start({ DATA_DIR: './data', EMBEDDED_POSTGRES_PORT: String(pgPort) }, { cwd: checkout, preserveSymlinks: true });
      await waitHealthy(app);
      // The cluster lives where `postgres` can reach it, and DATA_DIR says where.
      expect((await lstat(join(dataDir, 'postgres'))).isSymbolicLink()).toBe(true);
      const cluster = await readlink(join(dataDir, 'postgres'));
      expect(cluster).toContain(join(runtimeDir, 'clusters'));
      expect(readdirSync(runtimeDir).some((n) => n.startsWith('postgres-'))).toBe(true);
      const user = await register(app);
      // The app reaches its server through the Unix socket in the cluster's directory: its
      // sessions have no client address, and none came over TCP.
      const pg = new Client({
        host: cluster,
        port: pgPort,
        user: 'postgres',
        password: readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim(),
        database: 'statichost',
      });
      await pg.connect();
      try {
        const { rows } = await pg.query<{ over_socket: number; over_tcp: number }>(
          `SELECT count(*) FILTER (WHERE client_addr IS NULL)::int AS over_socket, count(*) FILTER (WHERE client_addr IS NOT NULL)::int AS over_tcp
             FROM pg_stat_activity WHERE datname = 'statichost' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        );
        expect(rows[0].over_socket).toBeGreaterThan(0);
        expect(rows[0].over_tcp).toBe(0);
      } finally {
        await pg.end();
      }
      await stopApp(app);

      // Its data survives a restart.
      const again = await start({ DATA_DIR: './data', EMBEDDED_POSTGRES_PORT: String(await freePort()) }, { cwd: checkout, preserveSymlinks: true });
      await waitHealthy(again);
      const login = await httpPost(`${again.url}/auth/login`, {}, { email: user.email, password: 'correct horse battery staple' });
      expect(login.status).toBe(200);
      await stopApp(again);
    },
    240_000,
  );

  it('a start-up failure is one line that says what to do, and a non-zero exit', async () => {
    const pgPort = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(pgPort, '127.0.0.1', () => r()));
    try {
      const app = await start({ DATA_DIR: await openDataDir(), EMBEDDED_POSTGRES_PORT: String(pgPort) });
      const { code } = await app.exited;
      expect(code).toBe(1);
      const err = app.stderr().trim();
      expect(err).not.toContain('\n');
      expect(err).toMatch(new RegExp(`port is in use.*EMBEDDED_POSTGRES_PORT`));
    } finally {
      squatter.close();
    }

    // DATA_DIR that is a file.
    const file = join(await openDataDir(), '..', 'a-file');
    await writeFile(file, 'x');
    const bad = await start({ DATA_DIR: file, EMBEDDED_POSTGRES_PORT: String(await freePort()) });
    const { code } = await bad.exited;
    expect(code).toBe(1);
    expect(bad.stderr().trim()).not.toContain('\n');
    expect(bad.stderr()).toMatch(/DATA_DIR/);
  }, 120_000);

  it('after kill -9 of the app, the next start stops the orphaned server and is healthy', async () => {
    const dataDir = await openDataDir();
    // Enterable once the app adds o+x (0711), unreadable by others: the cluster stays inside it.
    await mkdir(dataDir, { mode: 0o700 });
    const env = { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
    const first = await start(env);
    await waitHealthy(first);
    expect((await lstat(join(dataDir, 'postgres'))).isDirectory()).toBe(true);
    const orphan = postmasterPid(dataDir);
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    expect(alive(orphan)).toBe(true); // nothing stopped it

    const second = await start(env);
    await waitHealthy(second);
    expect(alive(orphan)).toBe(false);
    expect(postmasterPid(dataDir)).not.toBe(orphan);
    await stopApp(second);
  }, 180_000);

  it('a kill of everything during the first initdb leaves a DATA_DIR that the next start repairs', async () => {
    const dataDir = await openDataDir();
    const env = { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
    const first = await start(env);
    // initdb has begun writing the cluster (PG_VERSION comes first) and is far from done.
    const initdbStarted = () => existsSync(dataDir) && readdirSync(dataDir).some((n) => n.startsWith('postgres') && existsSync(join(dataDir, n, 'PG_VERSION')));
    await until('initdb to start writing', initdbStarted, 60_000, 5);
    killGroup(first, 'SIGKILL'); // the app and initdb, as a container stop or OOM kill would
    await first.exited;

    const second = await start(env);
    await waitHealthy(second);
    await register(second);
    await stopApp(second);
  }, 180_000);

  it('when the server dies under the running app: API 503 + Retry-After, cached sites still served, then it comes back', async () => {
    const dataDir = await openDataDir();
    const pgPort = await freePort();
    const app = await start({ DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(pgPort) });
    await waitHealthy(app);
    const user = await register(app);
    const auth = { Authorization: `Bearer ${user.accessToken}`, 'X-Workspace-Id': user.workspaceId };
    const slug = `pg-crash-${Date.now().toString(36)}`;
    const token = await httpPost(`${app.url}/access-tokens`, auth, { name: 'deploy', scopes: ['deploy'] });
    expect(token.status).toBe(201);
    const deploy = await httpPost(
      `${app.url}/v1/deployments`,
      { Authorization: `Bearer ${token.json.token}` },
      {
        project_slug: slug,
        files: [{ path: 'index.html', content: '<h1>still here</h1>' }],
      },
    );
    expect(deploy.status).toBe(201);
    const siteGet = () => httpGet(`${app.url}/`, { Host: `${slug}.localhost` });
    const projects = () => httpGet(`${app.url}/projects`, auth);
    expect((await siteGet()).status).toBe(200);
    expect((await projects()).status).toBe(200);

    // kill -9 the postmaster, then hold its port so the restarts fail until we let go.
    process.kill(postmasterPid(dataDir), 'SIGKILL');
    // It hangs up on every connection, as a dead port would refuse them.
    const squatter = createServer((socket) => socket.destroy());
    await until(
      'the port to be free',
      () =>
        new Promise<boolean>((r) => {
          squatter.once('error', () => r(false));
          squatter.listen(pgPort, '127.0.0.1', () => r(true));
        }),
      5_000,
      20,
    );
    try {
      const res = await projects().catch((err) => {
        throw new Error(`${err.message}\n${app.stdout().slice(-4000)}`);
      });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(JSON.parse(res.body).code).toBe('database_unavailable');
      const page = await siteGet();
      expect(page.status).toBe(200);
      expect(page.body).toContain('still here');
      expect((await httpGet(`${app.url}/health`)).status).toBe(503);
    } finally {
      await new Promise((r) => squatter.close(r));
    }

    await waitHealthy(app, 60_000);
    await until('the API to answer again', async () => (await projects()).status === 200, 30_000, 250);
    expect((await siteGet()).status).toBe(200);
    expect(app.proc.exitCode).toBeNull();
    await stopApp(app);
  }, 240_000);
});
