import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
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
  let dns: TestDnsServer;
  let user: Awaited<ReturnType<typeof registerUser>>;

  const cli = (args: string[], extraEnv: Record<string, string | undefined> = {}, input?: string) => runCli(args, { ...env, ...extraEnv }, { input });
  const json = async (args: string[], extraEnv: Record<string, string | undefined> = {}) => {
    const res = await cli(['--json', ...args], extraEnv);
    if (res.code !== 0) throw new Error(`statichost ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
    return JSON.parse(res.stdout);
  };

  beforeAll(async () => {
    // Room for every project and deploy these tests make (the free plan allows 3 and 10).
    dns = await startDnsServer();
    t = await startTestApp({
      env: { PLANS_JSON: JSON.stringify({ free: { projects: 50, deploymentsPerMonth: 500 } }), DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000' },
    });
    user = await registerUser(t);
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
    await dns?.close();
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
      expect(res.stderr).toContain('No API token. Run `statichost login` (or `statichost signup`)');
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
      expect(res.stderr).toMatch(
        new RegExp(`Uploading ${FILES} new or changed files \\(.*\\); 0 already uploaded \\(${FILES - 1} small ones inline, 1 by PUT /v1/blobs\\)`),
      );
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

  describe('login with email and password', () => {
    const password = 'correct horse battery staple';
    const tokenRow = async (id: string) => (await t.dataSource.query('SELECT name, scopes, workspace_id FROM access_tokens WHERE id = $1', [id]))[0];

    it('signs in, creates a deploy+read token named after the machine in the personal workspace, stores it 0600 and says so', async () => {
      const file = join(home, 'login-env', 'config.json');
      const res = await cli(['login', '--email', user.email], { STATICHOST_CONFIG: file, STATICHOST_PASSWORD: password });
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(`Logged in to ${t.baseUrl} as ${user.email}.`);
      expect(res.stdout).toMatch(
        new RegExp(`Created API token tok_\\w+ "${hostname()}" \\(scopes: deploy, read\\) in workspace Test User's workspace \\(${user.workspaceId}\\)`),
      );
      expect(res.stdout).toContain(`Saved to ${file}`);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(await readFile(file, 'utf8'));
      expect(stored).toEqual({ token: expect.stringMatching(/^sk_live_/), apiUrl: t.baseUrl });
      const me = await json(['whoami'], { STATICHOST_CONFIG: file });
      expect(me).toMatchObject({ workspaceId: user.workspaceId, scopes: ['deploy', 'read'] });
      expect(await tokenRow(me.tokenId)).toMatchObject({ name: hostname(), workspace_id: user.workspaceId });
      // The password never lands on disk.
      expect(await readFile(file, 'utf8')).not.toContain(password);
    });

    it('reads the password from stdin, and takes --workspace, --scopes and --token-name', async () => {
      const file = join(home, 'login-stdin.json');
      const res = await cli(
        ['--json', 'login', '--email', user.email, '--workspace', user.workspaceId, '--scopes', 'deploy,read,admin', '--token-name', 'laptop'],
        { STATICHOST_CONFIG: file },
        `${password}\n`,
      );
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toMatchObject({
        email: user.email,
        workspaceId: user.workspaceId,
        tokenName: 'laptop',
        scopes: ['deploy', 'read', 'admin'],
        configFile: file,
      });
      expect(await tokenRow(out.tokenId)).toMatchObject({ name: 'laptop' });
    });

    it('a wrong password stores nothing; --json prints the API’s error body unchanged, exit 1', async () => {
      const file = join(home, 'login-wrong.json');
      const res = await cli(['--json', 'login', '--email', user.email], { STATICHOST_CONFIG: file, STATICHOST_PASSWORD: 'not the password' });
      expect(res.code).toBe(1);
      const direct = await t.http().post('/auth/login').send({ email: user.email, password: 'not the password' });
      const { requestId: _a, ...body } = JSON.parse(res.stderr.trim());
      const { requestId: _b, ...expected } = direct.body;
      expect(body).toEqual(expected);
      expect(body).toMatchObject({ statusCode: 401 });
      await expect(stat(file)).rejects.toThrow();
    });

    it('without an email and nobody to ask, is a usage error (exit 2), in the API’s error shape under --json', async () => {
      const res = await cli(['--json', 'login'], { STATICHOST_CONFIG: join(home, 'none.json') });
      expect(res.code).toBe(2);
      expect(JSON.parse(res.stderr)).toEqual({ statusCode: null, error: 'Usage Error', message: expect.stringContaining('--email'), code: 'no_email' });
      const unknown = await cli(['--json', 'deploi']);
      expect(unknown.code).toBe(2);
      expect(JSON.parse(unknown.stderr)).toEqual({
        statusCode: null,
        error: 'Usage Error',
        message: expect.stringContaining("unknown command 'deploi'"),
        code: 'usage_error',
      });
      const noToken = await cli(['--json', 'whoami'], { STATICHOST_CONFIG: join(home, 'none.json') });
      expect(noToken.code).toBe(1);
      expect(JSON.parse(noToken.stderr)).toMatchObject({ statusCode: null, error: 'CLI Error', code: 'no_token' });
    });
  });

  describe('deploy: the folder’s link, a free slug, symbolic links', () => {
    let other: string;

    beforeAll(async () => {
      const someoneElse = await registerUser(t, { name: 'Someone Else' });
      other = (await createApiToken(t, someoneElse, { scopes: ['deploy', 'read'] })).token;
      await deploySite(t, other, 'taken-site', [{ path: 'index.html', content: 'not yours' }]);
    });

    it('remembers the project in .statichost/project.json: the next deploy goes there without --project', async () => {
      const dir = join(home, 'linked-folder');
      await mkdir(dir);
      await writeFile(join(dir, 'index.html'), 'v1');
      const first = await cli(['deploy', dir, '--project', 'chosen-name']);
      expect(first.code).toBe(0);
      expect(first.stderr).toContain('Linked');
      const link = JSON.parse(await readFile(join(dir, '.statichost', 'project.json'), 'utf8'));
      const [project] = await t.dataSource.query('SELECT id, workspace_id FROM projects WHERE slug = $1', ['chosen-name']);
      expect(link).toEqual({ project_slug: 'chosen-name', project_id: project.id, workspace_id: project.workspace_id, api_url: t.baseUrl });
      await writeFile(join(dir, 'index.html'), 'v2');
      const second = await cli(['deploy', dir]);
      expect(second.code).toBe(0);
      expect(second.stderr).toContain('to project "chosen-name"');
      expect(second.stdout).toContain('Deployed version 2');
      expect((await site(t, 'chosen-name').get('/').expect(200)).text).toBe('v2');
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM projects WHERE slug = $1', ['linked-folder']);
      expect(n).toBe(0);
      // The link file itself is never deployed.
      const paths = await t.dataSource.query(
        'SELECT DISTINCT path FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id WHERE d.project_id = $1',
        [project.id],
      );
      expect(paths).toEqual([{ path: 'index.html' }]);
    });

    it('a folder whose name another workspace has (or that is reserved) deploys to a free slug with a random suffix, and says which', async () => {
      for (const name of ['taken-site', 'docs']) {
        const dir = join(home, 'free-slug', name);
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, 'index.html'), `mine: ${name}`);
        const res = await cli(['deploy', dir]);
        expect(res.code).toBe(0);
        const chosen = new RegExp(
          `Project slug "${name}" (is taken by another workspace|cannot be used .*reserved.*); using "(${name}-[a-z0-9]{6})" instead`,
        ).exec(res.stderr);
        expect(chosen).not.toBeNull();
        const slug = chosen![2];
        expect(res.stdout.trim().split('\n').pop()).toBe(`http://${slug}.localhost:${t.port}`);
        expect((await site(t, slug).get('/').expect(200)).text).toBe(`mine: ${name}`);
        expect(JSON.parse(await readFile(join(dir, '.statichost', 'project.json'), 'utf8'))).toMatchObject({ project_slug: slug });
      }
      expect((await site(t, 'taken-site').get('/').expect(200)).text).toBe('not yours');
      // A slug the user chose is never changed behind their back.
      const chosen = await cli(['deploy', join(home, 'free-slug', 'taken-site'), '--project', 'taken-site']);
      expect(chosen.code).toBe(1);
      expect(chosen.stderr).toMatch(/slug "taken-site" is already taken \(HTTP 409, slug_taken\)/);
    });

    it('never follows a symbolic link out of the folder: skipped with a warning; links inside deploy the file', async () => {
      const dir = join(home, 'links');
      await mkdir(dir);
      await writeFile(join(home, 'private.key'), 'PRIVATE KEY');
      await writeFile(join(dir, 'index.html'), 'home');
      await symlink('/etc/hostname', join(dir, 'host.txt'));
      await symlink(join(home, 'private.key'), join(dir, 'key.txt'));
      await symlink('index.html', join(dir, 'alias.html'));
      const res = await cli(['deploy', dir, '--project', 'links-site']);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain('Warning: skipped host.txt: symbolic link to /etc/hostname, outside the folder');
      expect(res.stderr).toContain(`Warning: skipped key.txt: symbolic link to ${join(home, 'private.key')}, outside the folder`);
      const [project] = await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', ['links-site']);
      const paths = await t.dataSource.query(
        'SELECT f.path FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id WHERE d.project_id = $1 ORDER BY f.path',
        [project.id],
      );
      expect(paths.map((p: { path: string }) => p.path)).toEqual(['alias.html', 'index.html']);
      expect((await site(t, 'links-site').get('/alias').expect(200)).text).toBe('home');
      expect((await site(t, 'links-site').get('/key.txt')).text).not.toContain('PRIVATE KEY');
    });
  });

  describe('a deploy the plan refuses uploads nothing', () => {
    let tight: TestApp;
    let tightEnv: Record<string, string>;
    const big = (label: string) => `${label} ${'x'.repeat(100_000)}`;
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    const stored = async (text: string) =>
      (
        await t.dataSource.query(
          'SELECT (SELECT count(*) FROM blobs WHERE sha256 = $1)::int + (SELECT count(*) FROM workspace_blobs WHERE sha256 = $1)::int AS n',
          [sha(text)],
        )
      )[0].n;

    beforeAll(async () => {
      // The same database, another instance with a small plan: 1 project, 150 KB of storage.
      tight = await startTestApp({
        sibling: t,
        env: { PLANS_JSON: JSON.stringify({ free: { projects: 1, deploymentsPerMonth: 500, storageBytes: 150_000 } }) },
      });
      const owner = await registerUser(tight);
      const token = (await createApiToken(tight, owner, { scopes: ['deploy', 'read'] })).token;
      tightEnv = { STATICHOST_API_URL: tight.baseUrl, STATICHOST_TOKEN: token };
      await deploySite(tight, token, 'only-one', [{ path: 'index.html', content: 'the one project' }]);
    });
    afterAll(() => tight?.close());

    it('one project too many: 402 before any upload', async () => {
      const dir = join(home, 'second-project');
      await mkdir(dir);
      await writeFile(join(dir, 'big.bin'), big('second project'));
      const res = await cli(['--json', 'deploy', dir], tightEnv);
      expect(res.code).toBe(1);
      expect(JSON.parse(res.stderr)).toMatchObject({ statusCode: 402, code: 'quota_exceeded', quota: 'projects' });
      expect(await stored(big('second project'))).toBe(0);
    });

    it('more storage than the plan has: 402 before any upload', async () => {
      const dir = join(home, 'too-big');
      await mkdir(dir);
      await writeFile(join(dir, 'a.bin'), big('part a'));
      await writeFile(join(dir, 'b.bin'), big('part b'));
      const res = await cli(['deploy', dir, '--project', 'only-one'], tightEnv);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/Error: .*the free plan allows .* \(HTTP 402, quota_exceeded\)/);
      expect(res.stderr).not.toContain('Uploading');
      expect(await stored(big('part a'))).toBe(0);
      expect(await stored(big('part b'))).toBe(0);
    });
  });

  describe('gate, domain, promote and archive by version', () => {
    let dir: string;
    const inFolder = (args: string[], extraEnv: Record<string, string> = {}, input?: string) => runCli(args, { ...env, ...extraEnv }, { cwd: dir, input });

    beforeAll(async () => {
      dir = join(home, 'settings-site');
      await mkdir(dir);
      for (const v of [1, 2, 3]) {
        await writeFile(join(dir, 'index.html'), `version ${v}`);
        expect((await cli(['deploy', dir])).code).toBe(0);
      }
    });

    it('gate set password (from the environment or stdin), email and none, for the folder’s project', async () => {
      const res = await inFolder(['gate', 'set', 'password'], { STATICHOST_GATE_PASSWORD: 'open sesame' });
      expect(res).toMatchObject({ code: 0 });
      expect(res.stdout).toContain('settings-site asks for the password');
      expect((await site(t, 'settings-site').get('/')).text).not.toContain('version 3');
      expect((await inFolder(['gate', 'set', 'password'], {}, 'another secret\n')).code).toBe(0);
      expect((await inFolder(['gate', 'set', 'email'])).stdout).toContain('asks visitors for their email');
      expect((await inFolder(['gate', 'set', 'none'])).stdout).toContain('settings-site is public');
      expect((await site(t, 'settings-site').get('/').expect(200)).text).toBe('version 3');
      const bad = await inFolder(['gate', 'set', 'secret']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('must be one of none, password, email');
      const short = await inFolder(['gate', 'set', 'password'], { STATICHOST_GATE_PASSWORD: 'short' });
      expect(short.code).toBe(1);
      expect(short.stderr).toMatch(/password:? must be at least 8 characters \(HTTP 400/);
    });

    it('domain add prints the records, verify fails (exit 1) until DNS has them, remove detaches', async () => {
      const added = await inFolder(['domain', 'add', 'www.cli-example.test']);
      expect(added.code).toBe(0);
      expect(added.stdout).toContain('www.cli-example.test is attached to settings-site (pending)');
      const txt = /TXT +(_statichost-challenge\.www\.cli-example\.test) +(\S+)/.exec(added.stdout)!;
      expect(txt).not.toBeNull();
      const early = await inFolder(['domain', 'verify']);
      expect(early.code).toBe(1);
      expect(early.stdout).toContain('is not verified yet');
      dns.setTxt(txt[1], txt[2]);
      const verified = await inFolder(['--json', 'domain', 'verify']);
      expect(verified.code).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ verified: true, domainStatus: 'verified' });
      const removed = await inFolder(['domain', 'remove']);
      expect(removed).toMatchObject({ code: 0 });
      expect(removed.stdout).toContain('Removed www.cli-example.test from settings-site');
      expect((await inFolder(['domain', 'remove'])).code).toBe(1);
    });

    it('promote and archive take a version number, the project from the folder or --project', async () => {
      const promoted = await inFolder(['promote', '1']);
      expect(promoted.code).toBe(0);
      expect(promoted.stdout).toMatch(/^Version 1 \(dep_\w+\) of settings-site is live/);
      expect((await site(t, 'settings-site').get('/').expect(200)).text).toBe('version 1');
      const archived = await cli(['archive', '3', '--project', 'settings-site']);
      expect(archived.code).toBe(0);
      expect(archived.stdout).toMatch(/^Archived version 3/);
      const nowhere = await runCli(['promote', '2'], env, { cwd: home });
      expect(nowhere.code).toBe(2);
      expect(nowhere.stderr).toContain('Which project? Pass --project <slug>');
    });
  });

  it('answers an unknown command with exit 2 and a hint', async () => {
    const res = await cli(['deploi']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("unknown command 'deploi'");
  });
});
