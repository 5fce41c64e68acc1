import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { spawnApp, stopApp, waitHealthy } from '../database/app-process';
import { startTestApp, type TestApp } from '../helpers/app';
import { fetchSite } from '../helpers/sites';
import { runCli } from './cli-process';

/**
 * A newcomer's first run, as README's first screen shows it: from a database with
 * no account at all to a served site, with nothing but the `statichost` command.
 */
describe('first run: from nothing to a served site with the CLI only (e2e)', () => {
  let t: TestApp;
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The service's own defaults (the free plan as shipped), as a newcomer gets them.
    t = await startTestApp({ env: { PLANS_JSON: undefined } });
    home = await mkdtemp(join(tmpdir(), 'statichost-first-run-'));
    env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), STATICHOST_API_URL: t.baseUrl };
  });
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  it('signup → deploy ./my-site → the site answers', async () => {
    const [{ users }] = await t.dataSource.query('SELECT count(*)::int AS users FROM users');
    expect(users).toBe(0);

    // 1. An account, and a token for this machine stored for the next commands.
    const signup = await runCli(['signup', '--email', 'ada@example.com', '--name', 'Ada'], { ...env, STATICHOST_PASSWORD: 'correct horse battery staple' });
    expect(signup.stderr).toContain('Created account ada@example.com');
    expect(signup).toMatchObject({ code: 0 });
    expect(signup.stdout).toContain(`Created API token tok_`);
    expect(signup.stdout).toContain(`"${hostname()}" (scopes: deploy, read)`);
    const configFile = join(home, '.config', 'statichost', 'config.json');
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ token: expect.stringMatching(/^sk_live_/), apiUrl: t.baseUrl });

    // 2. A folder deployed: the project takes the folder's name.
    const dir = join(home, 'my-site');
    await mkdir(dir);
    await writeFile(join(dir, 'index.html'), '<h1>Hello from my first site</h1>');
    const deploy = await runCli(['deploy', './my-site'], env, { cwd: home });
    expect(deploy).toMatchObject({ code: 0 });
    const url = deploy.stdout.trim().split('\n').pop()!;
    expect(url).toBe(`http://my-site.localhost:${t.port}`);

    // 3. The site, asked for with its Host header (Node's fetch does not resolve *.localhost).
    expect(await fetchSite(t, url)).toEqual({ status: 200, body: '<h1>Hello from my first site</h1>' });

    // And the folder remembers its project for the next deploy.
    expect(JSON.parse(await readFile(join(dir, '.statichost', 'project.json'), 'utf8'))).toMatchObject({
      project_slug: 'my-site',
      project_id: expect.stringMatching(/^proj_/),
    });
    await writeFile(join(dir, 'index.html'), '<h1>Hello again</h1>');
    const again = await runCli(['deploy', 'my-site'], env, { cwd: home });
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('Deployed version 2');
    expect(await fetchSite(t, url)).toEqual({ status: 200, body: '<h1>Hello again</h1>' });
  });

  it("a fresh start's first screen names the dashboard's address and where mail goes without SMTP_URL", async () => {
    const dataDir = join(home, 'data');
    // The app as `npm start` runs it, on this suite's database, with the defaults a newcomer has.
    const app = await spawnApp({
      env: { DATABASE_URL: t.databaseUrl, DATA_DIR: dataDir, SITES_DOMAIN: 'localhost', SMTP_URL: '', PUBLIC_API_URL: '', API_HOSTS: '' },
    });
    try {
      await waitHealthy(app);
      const port = new URL(app.url).port;
      const messages = app
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '');
      expect(messages).toContain(`dashboard: http://localhost:${port}/app/`);
      expect(messages).toContain(`mail: SMTP_URL is unset, so mail is written to ${dataDir}/mail/<id>.eml and its links are logged`);
    } finally {
      await stopApp(app);
    }
  });
});
