import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { startTestApp, TestApp } from '../helpers/app';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';
import { runCli } from './cli-process';

const FILES = 500;

/**
 * The `statichost` command, run as a user runs it: the bin in a child process
 * against the real app, one process per command.
 */
describe('statichost CLI (e2e)', () => {
  let t: TestApp;
  let home: string;
  let siteDir: string;
  let token: string;
  let env: Record<string, string>;
  let configFile: string;

  const cli = (args: string[], extraEnv: Record<string, string | undefined> = {}) => runCli(args, { ...env, ...extraEnv });
  const json = async (args: string[], extraEnv: Record<string, string | undefined> = {}) => {
    const res = await cli(['--json', ...args], extraEnv);
    if (res.code !== 0) throw new Error(`statichost ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
    return JSON.parse(res.stdout);
  };

  beforeAll(async () => {
    // Room for every project and deploy these tests make (the free plan allows 3 and 10).
    t = await startTestApp({ env: { PLANS_JSON: JSON.stringify({ free: { projects: 50, deploymentsPerMonth: 500 } }) } });
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read', 'delete', 'admin'], name: 'cli e2e' })).token;
    home = await mkdtemp(join(tmpdir(), 'statichost-cli-'));
    configFile = join(home, 'config', 'statichost', 'config.json');
    // HOME and the config path point into a temp folder: the test never touches the real user's files.
    env = { HOME: home, STATICHOST_CONFIG: configFile, STATICHOST_API_URL: t.baseUrl };

    siteDir = join(home, 'my-site');
    await mkdir(join(siteDir, 'pages'), { recursive: true });
    await mkdir(join(siteDir, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(siteDir, 'index.html'), '<h1>home v1</h1>');
    for (let i = 1; i < FILES; i++) await writeFile(join(siteDir, 'pages', `page-${i}.html`), `<p>page ${i} v1</p>`);
    // One file too large to ride inline in the manifest: it goes by PUT /v1/blobs.
    await writeFile(join(siteDir, 'pages', 'page-1.html'), `<p>${'big '.repeat(50_000)}</p>`);
    await writeFile(join(siteDir, '.env'), 'SECRET=never-deployed');
    await writeFile(join(siteDir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1');
  });
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  describe('login and whoami', () => {
    it('login --token checks the token and stores it with the API address in a 0600 file', async () => {
      const res = await cli(['login', '--token', token]);
      expect(res).toMatchObject({ code: 0, stderr: '' });
      expect(res.stdout).toContain(`Logged in to ${t.baseUrl}`);
      expect((await stat(configFile)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ token, apiUrl: t.baseUrl });
    });

    it('login refuses a token the API does not accept, and stores nothing', async () => {
      const other = join(home, 'other-config.json');
      const res = await cli(['login', '--token', 'sk_live_notarealtoken'], { STATICHOST_CONFIG: other });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('Error: Missing or invalid credentials (HTTP 401, unauthorized)');
      await expect(stat(other)).rejects.toThrow();
    });

    it('whoami uses the stored token (no STATICHOST_TOKEN) and prints the workspace', async () => {
      const res = await cli(['whoami']);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/Workspace: +Test User's workspace \(ws_/);
      expect(res.stdout).toContain('Scopes:     deploy, read, delete, admin');
      expect(res.stdout).toContain(`(from ${configFile})`);
      const me = await json(['whoami']);
      expect(me).toMatchObject({ scopes: ['deploy', 'read', 'delete', 'admin'], projectId: null, apiUrl: t.baseUrl });
    });

    it('whoami fails with exit 1 and says how to log in when there is no token', async () => {
      const res = await cli(['whoami'], { STATICHOST_CONFIG: join(home, 'none.json') });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('No API token. Run `statichost login --token sk_live_...`');
    });

    it('flags win over the environment: --api-url to a dead address fails clearly', async () => {
      const res = await cli(['whoami', '--api-url', 'http://127.0.0.1:1'], { STATICHOST_TOKEN: token });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('Could not reach http://127.0.0.1:1');
    });
  });

  describe('deploy', () => {
    it(`deploys a folder of ${FILES} files, uploading each once, and prints the URL`, async () => {
      const res = await cli(['deploy', siteDir, '--ttl', '7d'], { STATICHOST_TOKEN: token });
      expect(res.code).toBe(0);
      expect(res.stderr).toContain(`Deploying ${FILES} files`);
      expect(res.stderr).toContain('to project "my-site"');
      expect(res.stderr).toContain('Skipped 2: .env (hidden), node_modules (node_modules)');
      expect(res.stderr).toMatch(new RegExp(`Uploading ${FILES} new or changed files \\(.*\\); 0 already uploaded \\(${FILES - 1} small ones inline, 1 by PUT /v1/blobs\\)`));
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM workspace_blobs');
      expect(n).toBe(1);
      expect(res.stdout).toContain('Deployed version 1');
      expect(res.stdout.trim().split('\n').pop()).toBe(`http://my-site.localhost:${t.port}`);
      expect((await site(t, 'my-site').get('/').expect(200)).text).toBe('<h1>home v1</h1>');
      expect((await site(t, 'my-site').get('/pages/page-321').expect(200)).text).toBe('<p>page 321 v1</p>');
      expect((await site(t, 'my-site').get('/pages/page-1').expect(200)).text).toHaveLength(200_007);
      // Not deployed: without a 404.html the site is an SPA, so the miss gets index.html, never the file.
      expect((await site(t, 'my-site').get('/.env')).text).not.toContain('SECRET');
    });

    it('deploys again uploading only the changed and new files', async () => {
      await writeFile(join(siteDir, 'index.html'), '<h1>home v2</h1>');
      await writeFile(join(siteDir, 'pages', 'page-7.html'), '<p>page 7 v2</p>');
      await writeFile(join(siteDir, 'pages', 'page-400.html'), '<p>page 400 v2</p>');
      await writeFile(join(siteDir, 'pages', 'new.html'), '<p>new</p>');
      const res = await cli(['deploy', siteDir, '--project', 'my-site', '--json'], { STATICHOST_TOKEN: token });
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toMatchObject({ version: 2, files: FILES + 1, uploaded_files: 4, project: 'my-site' });
      expect(out.url).toBe(`http://my-site.localhost:${t.port}`);

      const human = await cli(['deploy', siteDir], { STATICHOST_TOKEN: token });
      expect(human.stderr).toContain(`Uploading 0 files: all ${FILES + 1} already uploaded`);
      expect(human.stdout).toContain('Deployed version 3');

      expect((await site(t, 'my-site').get('/').expect(200)).text).toBe('<h1>home v2</h1>');
      expect((await site(t, 'my-site').get('/pages/page-7').expect(200)).text).toBe('<p>page 7 v2</p>');
      expect((await site(t, 'my-site').get('/pages/new').expect(200)).text).toBe('<p>new</p>');
    });

    it('deploys a single file under its own name', async () => {
      const file = join(home, 'single.html');
      await writeFile(file, '<p>single</p>');
      const res = await cli(['deploy', file, '--project', 'single-file'], { STATICHOST_TOKEN: token });
      expect(res.code).toBe(0);
      expect((await site(t, 'single-file').get('/single').expect(200)).text).toBe('<p>single</p>');
    });

    it('fails with the API’s message on a bad ttl (exit 1), and with exit 2 on a missing folder', async () => {
      const bad = await cli(['deploy', siteDir, '--ttl', 'soon'], { STATICHOST_TOKEN: token });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/Error: ttl.*\(HTTP 400/);
      const missing = await cli(['deploy', join(home, 'nope')], { STATICHOST_TOKEN: token });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no such file or folder');
    });
  });

  describe('projects', () => {
    it('list shows the workspace’s projects as a table, and as JSON', async () => {
      const res = await cli(['projects', 'list']);
      expect(res.code).toBe(0);
      const [header, ...rows] = res.stdout.trim().split('\n');
      expect(header).toMatch(/^ID +SLUG +NAME +GATE +LIVE DEPLOYMENT +URL +CREATED$/);
      expect(rows.some((r) => r.includes('my-site') && r.includes(`http://my-site.localhost:${t.port}`))).toBe(true);
      const list = await json(['projects', 'list', '--limit', '1']);
      expect(list.meta).toMatchObject({ limit: 1, total: 2, totalPages: 2 });
    });

    it('create makes a project; a taken slug fails with the API’s 409 message', async () => {
      const created = await json(['projects', 'create', 'Made by the CLI', '--slug', 'cli-made', '--ttl', '1d']);
      expect(created).toMatchObject({ slug: 'cli-made', name: 'Made by the CLI', default_ttl: '1d' });
      const again = await cli(['projects', 'create', 'Again', '--slug', 'cli-made']);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/Error: .*cli-made.*\(HTTP 409/);
    });

    it('delete needs --yes when nobody can be asked, then deletes; an unknown project fails', async () => {
      const refused = await cli(['projects', 'delete', 'cli-made']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Not deleted (confirm with --yes)');
      const res = await cli(['projects', 'delete', 'cli-made', '--yes']);
      expect(res).toMatchObject({ code: 0 });
      expect(res.stdout).toMatch(/^Deleted project cli-made \(proj_/);
      const gone = await cli(['projects', 'delete', 'cli-made', '--yes']);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain('No project "cli-made" in this workspace');
      const json404 = await cli(['--json', 'projects', 'delete', 'proj_000000000000000000000000', '--yes']);
      expect(json404.code).toBe(1);
      expect(JSON.parse(json404.stderr)).toMatchObject({ statusCode: 404, code: 'not_found' });
    });
  });

  describe('deployments', () => {
    it('list shows versions, newest first', async () => {
      const res = await cli(['deployments', 'list', 'my-site']);
      expect(res.code).toBe(0);
      const rows = res.stdout.trim().split('\n').slice(1);
      expect(rows.map((r) => r.split(/ +/)[1])).toEqual(['3', '2', '1']);
      expect(rows[0]).toContain('live');
      expect(rows[2]).toMatch(/archived +500 /);
    });

    it('promote rolls back to a version, and the site serves it', async () => {
      const res = await cli(['deployments', 'promote', 'my-site', '1']);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^Version 1 \(dep_\w+\) is live: http:\/\/my-site\.localhost:\d+/);
      expect((await site(t, 'my-site').get('/').expect(200)).text).toBe('<h1>home v1</h1>');
      const missing = await cli(['deployments', 'promote', 'my-site', '99']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no deployment with version 99');
    });

    it('archive archives a deployment; a malformed reference is a usage error', async () => {
      const list = await json(['deployments', 'list', 'my-site']);
      const v2 = list.data.find((d: { version: number }) => d.version === 2);
      const res = await cli(['deployments', 'archive', 'my-site', v2.id]);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(`Archived version 2 (${v2.id})`);
      const bad = await cli(['deployments', 'archive', 'my-site', 'latest']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('"latest" is neither a deployment id (dep_...) nor a version number');
    });
  });

  describe('tokens', () => {
    let created: { id: string; token: string };

    it('create prints the secret once; the new token works', async () => {
      const res = await cli(['tokens', 'create', 'CI deploys', '--scopes', 'deploy,read', '--expires', '30d']);
      expect(res.code).toBe(0);
      const secret = /sk_live_\w+/.exec(res.stdout)?.[0];
      expect(res.stdout).toContain('Copy it now: it is not shown again.');
      created = { id: /tok_\w+/.exec(res.stdout)![0], token: secret! };
      const me = await json(['whoami'], { STATICHOST_TOKEN: created.token });
      expect(me).toMatchObject({ tokenId: created.id, scopes: ['deploy', 'read'] });
    });

    it('create refuses an unknown scope before calling the API (exit 2)', async () => {
      const res = await cli(['tokens', 'create', 'x', '--scopes', 'deploy,everything']);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('--scopes: unknown scope everything');
    });

    it('list shows live tokens', async () => {
      const res = await cli(['tokens', 'list']);
      expect(res.code).toBe(0);
      expect(res.stdout.split('\n')[0]).toMatch(/^ID +NAME +SCOPES +PREFIX +PROJECT +EXPIRES +LAST USED$/);
      expect(res.stdout).toMatch(new RegExp(`${created.id} +CI deploys +deploy,read +sk_live_`));
    });

    it('revoke ends the token at once; revoking it again fails with 404', async () => {
      const res = await cli(['tokens', 'revoke', created.id]);
      expect(res).toMatchObject({ code: 0, stdout: `Revoked ${created.id}\n` });
      const dead = await cli(['whoami'], { STATICHOST_TOKEN: created.token });
      expect(dead.code).toBe(1);
      expect(dead.stderr).toContain('HTTP 401');
      const again = await cli(['tokens', 'revoke', created.id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('HTTP 404');
    });
  });

  describe('leads', () => {
    beforeAll(async () => {
      // An email-gated site with two visitors who left their address, through the real gate.
      await deploySite(t, token, 'gated-leads', [{ path: 'index.html', content: 'members only' }]);
      const [project] = await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', ['gated-leads']);
      await t.http().patch(`/projects/${project.id}`).set(bearer(token)).send({ gate_type: 'email' }).expect(200);
      for (const email of ['ada@example.com', 'grace@example.org']) {
        await site(t, 'gated-leads').post('/.statichost/gate').type('form').send({ email, next: '/' }).expect(303);
      }
    });

    it('list shows one project’s leads, or every project’s with the project named', async () => {
      const one = await cli(['leads', 'list', '--project', 'gated-leads']);
      expect(one.code).toBe(0);
      const lines = one.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^ID +EMAIL +CAPTURED$/);
      expect(lines.slice(1).map((l) => l.split(/ +/)[1])).toEqual(['grace@example.org', 'ada@example.com']);
      const all = await cli(['leads', 'list', '--search', 'ADA']);
      expect(all.code).toBe(0);
      expect(all.stdout.split('\n')[0]).toMatch(/^ID +EMAIL +PROJECT +CAPTURED$/);
      expect(all.stdout).toMatch(/lead_\w+ +ada@example\.com +gated-leads /);
      expect(all.stdout).not.toContain('grace@');
      const page = await json(['leads', 'list', '--limit', '1']);
      expect(page).toMatchObject({ meta: { total: 2, limit: 1, totalPages: 2 }, data: [{ email: 'grace@example.org', projectSlug: 'gated-leads' }] });
    });

    it('export writes the CSV to stdout or to a file', async () => {
      const res = await cli(['leads', 'export', '--project', 'gated-leads']);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('ada@example.com');
      expect(res.stdout).toContain('grace@example.org');
      const file = join(home, 'leads.csv');
      const toFile = await cli(['leads', 'export', '--project', 'gated-leads', '--search', 'grace', '-o', file]);
      expect(toFile).toMatchObject({ code: 0, stdout: '' });
      const csv = await readFile(file, 'utf8');
      expect(csv).toContain('grace@example.org');
      expect(csv).not.toContain('ada@');
    });

    it('analytics prints a project’s traffic and gate funnel', async () => {
      await t.app.get(AnalyticsRecorder).flush();
      const res = await cli(['analytics', 'gated-leads']);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/UTC, by day\n/);
      expect(res.stdout).toContain('Gate (email): 0 views → 2 unlocks (–), 2 emails');
      const hourly = await json(['analytics', 'gated-leads', '--interval', 'hour', '--from', new Date(Date.now() - 7_200_000).toISOString()]);
      expect(hourly).toMatchObject({ interval: 'hour', funnel: { emailsCaptured: 2 } });
      const bad = await cli(['analytics', 'gated-leads', '--interval', 'week']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('interval: must be hour or day');
    });

    it('export needs --project (usage error), and an unknown project fails', async () => {
      const res = await cli(['leads', 'export']);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain("required option '--project <project>' not specified");
      const unknown = await cli(['leads', 'list', '--project', 'no-such-project']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No project "no-such-project"');
    });
  });

  it('answers an unknown command with exit 2 and a hint', async () => {
    const res = await cli(['deploi']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("unknown command 'deploi'");
  });
});
