import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { createApiToken, registerUser } from '../helpers/identity';
import { freePort } from '../helpers/ports';
import { fetchSite } from '../helpers/sites';
import { buildsApi, contentSite, createProject, nodeSite, parseLog, startBuildApp } from './flow-support';

jest.setTimeout(180_000);

const run = promisify(execFile);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const SECRET = 'sup3r-s3cret-value-9f2c41';
const PREVIEW_ONLY = 'only-for-previews-77ab';
/** Whether text holds `token`, plain or inside base64 (an `Authorization: Basic` header on a command line). */
function carriesTokenIn(text: string, token: string): boolean {
  if (text.includes(token)) return true;
  return (text.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? []).some((word) => Buffer.from(word, 'base64').toString('latin1').includes(token));
}

/** Set in this process (the app's) before the app starts: a build must never see it. */
const CANARY = 'FLOW_APP_CANARY_5d1e';

/**
 * Issue #28: secrets reach the build but not its log; the `process` runner gives the build
 * none of the app's environment; a private repository builds with its access token (and
 * fails clearly without); every refused repository URL is a 400 repository_not_allowed.
 */
describe('Builds from Git: secrets, private repositories, refused URLs (e2e)', () => {
  let git: GitServer;
  beforeAll(async () => {
    git = await startGitServer();
  });
  afterAll(() => git?.close());

  describe('with builds on (process runner, repositories on 127.0.0.1 allowed)', () => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      process.env[CANARY] = 'the app process environment';
      t = await startBuildApp();
      token = (await createApiToken(t, await registerUser(t), { scopes: ['deploy', 'read', 'admin'] })).token;
    });
    afterAll(async () => {
      delete process.env[CANARY];
      await t?.close();
    });

    it('POST /builds of a project with no repository is 409 git_not_connected', async () => {
      const project = await createProject(t, token, 'flow-unconnected');
      const res = await buildsApi(t, token, project.id).start().expect(409);
      expect(res.body).toMatchObject({ code: 'git_not_connected' });
      expect((await buildsApi(t, token, project.id).list().expect(200)).body.meta.total).toBe(0);
    });

    it('env vars reach the build of their target, masked as *** in its log; the values are never shown', async () => {
      const echo = `const fs = require('node:fs');
const crypto = require('node:crypto');
console.log('the token is ' + process.env.API_TOKEN);
console.error('stderr too: ' + process.env.API_TOKEN);
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', 'ok');
// What the build saw, without putting the value itself on the site.
fs.writeFileSync('dist/seen.json', JSON.stringify({
  apiToken: process.env.API_TOKEN ? crypto.createHash('sha256').update(process.env.API_TOKEN).digest('hex') : null,
  previewOnly: process.env.PREVIEW_ONLY ?? null,
  plain: process.env.PUBLIC_GREETING ?? null,
}));
`;
      git.createRepo('secrets', nodeSite(echo));
      const project = await createProject(t, token, 'flow-secrets');
      const api = buildsApi(t, token, project.id);
      await api.connect({ repository: git.url('secrets'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
      await api.setEnv('API_TOKEN', { value: SECRET, targets: ['production', 'preview'] }).expect(200);
      await api.setEnv('PREVIEW_ONLY', { value: PREVIEW_ONLY, targets: ['preview'] }).expect(200);
      const put = await api.setEnv('PUBLIC_GREETING', { value: 'hello', targets: ['production'] }).expect(200);
      expect(put.body).toEqual({ name: 'PUBLIC_GREETING', targets: ['production'], updatedAt: expect.any(String) });
      const listed = (await api.listEnv().expect(200)).body;
      expect(listed.data.map((v: { name: string }) => v.name)).toEqual(['API_TOKEN', 'PREVIEW_ONLY', 'PUBLIC_GREETING']);
      expect(JSON.stringify(listed)).not.toContain(SECRET);

      const { build, log } = await api.run();
      expect(build.status).toBe('ready');
      // The build had the value (production variables only) ...
      const seen = JSON.parse((await fetchSite(t, build.url!, '/seen.json')).body);
      expect(seen).toEqual({ apiToken: sha256(SECRET), previewOnly: null, plain: 'hello' });
      // ... and its log shows *** in its place, on stdout and stderr alike.
      const lines = parseLog(log);
      expect(lines.some((l) => l.phase === 'build' && l.text.includes('the token is ***'))).toBe(true);
      expect(lines.some((l) => l.phase === 'build' && l.text.includes('stderr too: ***'))).toBe(true);
      expect(log).not.toContain(SECRET);
      // Nowhere else either: the record, the app's own log.
      expect(JSON.stringify((await api.get(build.id).expect(200)).body)).not.toContain(SECRET);
      expect(t.logs.join('')).not.toContain(SECRET);

      // A preview build gets the preview variables.
      git.commit('secrets', {}, { branch: 'preview-me', from: 'main', message: 'a preview' });
      const preview = await api.run({ ref: 'preview-me' });
      expect(preview.build.status).toBe('ready');
      expect(JSON.parse((await fetchSite(t, preview.build.url!, '/seen.json')).body)).toEqual({
        apiToken: sha256(SECRET),
        previewOnly: PREVIEW_ONLY,
        plain: null,
      });
      expect(preview.log).not.toContain(SECRET);
    });

    it('a process-runner build sees none of the app’s environment', async () => {
      const dump = `const fs = require('node:fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', 'ok');
fs.writeFileSync('dist/env.json', JSON.stringify(process.env));
`;
      git.createRepo('env-dump', nodeSite(dump));
      const project = await createProject(t, token, 'flow-env');
      const api = buildsApi(t, token, project.id);
      await api.connect({ repository: git.url('env-dump'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
      await api.setEnv('MINE', { value: 'from the project', targets: ['production'] }).expect(200);
      const { build } = await api.run();
      expect(build.status).toBe('ready');
      const env = JSON.parse((await fetchSite(t, build.url!, '/env.json')).body) as Record<string, string>;

      // The project's own variable is there: the dump is real.
      expect(env.MINE).toBe('from the project');
      // Nothing of the app's process: a variable set in it, the test runner's, the database, the app's secrets.
      expect(env[CANARY]).toBeUndefined();
      expect(env.JEST_WORKER_ID).toBeUndefined();
      for (const name of ['DATABASE_URL', 'JWT_SECRET', 'DATA_DIR', 'PLANS_JSON', 'BUILD_RUNNER', 'GIT_ALLOW_PRIVATE_ADDRESSES'])
        expect(env[name]).toBeUndefined();
      const values = Object.values(env).join('\n');
      expect(values).not.toContain(t.databaseUrl);
      expect(values).not.toContain('the app process environment');
    });

    describe('a private repository', () => {
      const REPO_TOKEN = 'glpat-flowPrivateToken-123456';
      const carriesToken = (text: string) => carriesTokenIn(text, REPO_TOKEN);

      it('builds with its access token, which is never shown, logged or put on a command line', async () => {
        git.createRepo('private-site', contentSite('Private v1'), { token: REPO_TOKEN });
        const project = await createProject(t, token, 'flow-private');
        const api = buildsApi(t, token, project.id);
        const connected = await api
          .connect({ repository: git.url('private-site'), productionBranch: 'main', outputDirectory: 'dist', accessToken: REPO_TOKEN })
          .expect(200);
        expect(connected.body.hasAccessToken).toBe(true);
        expect(JSON.stringify(connected.body)).not.toContain(REPO_TOKEN);

        // While the clone runs, no process on this machine has the token in its arguments.
        let sawToken = false;
        const started = await api.startOk();
        const watching = (async () => {
          for (;;) {
            const { stdout } = await run('ps', ['-eo', 'args']);
            if (carriesToken(stdout)) sawToken = true;
            const status = (await api.get(started.id)).body.status;
            if (!['queued', 'running'].includes(status)) return;
          }
        })();
        const build = await api.until(started.id);
        await watching;
        expect(build.status).toBe('ready');
        expect(sawToken).toBe(false);
        expect((await fetchSite(t, build.url!)).body).toBe('<h1>Private v1</h1>\n');

        expect(carriesToken((await api.logs(build.id).expect(200)).text)).toBe(false);
        expect(JSON.stringify((await api.settings().expect(200)).body)).not.toContain(REPO_TOKEN);
        expect(carriesToken(t.logs.join(''))).toBe(false);
        // The stored token is sealed, not plain text.
        const rows = await t.dataSource.query(
          `SELECT * FROM information_schema.columns WHERE table_schema = current_schema() AND data_type IN ('text', 'bytea', 'character varying', 'jsonb', 'json')`,
        );
        for (const { table_name, column_name } of rows as { table_name: string; column_name: string }[]) {
          const hits = await t.dataSource.query(`SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}"::text LIKE $1`, [`%${REPO_TOKEN}%`]);
          expect({ table_name, column_name, n: hits[0].n }).toEqual({ table_name, column_name, n: 0 });
        }
      });

      it('without the token the build fails with an error that says the repository needs one', async () => {
        git.createRepo('private-no-token', contentSite('Never built'), { token: REPO_TOKEN });
        const project = await createProject(t, token, 'flow-private-no-token');
        const api = buildsApi(t, token, project.id);
        await api.connect({ repository: git.url('private-no-token'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
        const { build, log } = await api.run();
        expect(build).toMatchObject({ status: 'failed', deploymentId: null });
        expect(build.error).toMatch(/access ?token|authenticat|credential/i);
        expect(parseLog(log).some((l) => l.phase === 'clone')).toBe(true);

        // A wrong token is refused the same way, and the right one then builds.
        await api
          .connect({ repository: git.url('private-no-token'), productionBranch: 'main', outputDirectory: 'dist', accessToken: 'wrong-token' })
          .expect(200);
        expect((await api.run()).build).toMatchObject({ status: 'failed', error: expect.stringMatching(/access ?token|authenticat|credential/i) });
        // `accessToken` absent keeps the stored one; null removes it.
        await api.connect({ repository: git.url('private-no-token'), productionBranch: 'main', outputDirectory: 'dist', accessToken: REPO_TOKEN }).expect(200);
        expect(
          (await api.connect({ repository: git.url('private-no-token'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200)).body.hasAccessToken,
        ).toBe(true);
        expect((await api.run()).build.status).toBe('ready');
        expect(
          (await api.connect({ repository: git.url('private-no-token'), productionBranch: 'main', outputDirectory: 'dist', accessToken: null }).expect(200))
            .body.hasAccessToken,
        ).toBe(false);
      });
    });

    describe('transports refused whatever the operator allows', () => {
      let daemon: ChildProcess | undefined;
      let daemonRoot: string;
      let daemonUrl: string;
      beforeAll(async () => {
        // A real git:// server holding a real repository: the URL works, and is still refused.
        git.createRepo('daemon-site', contentSite('over git://'));
        daemonRoot = await mkdtemp(join(tmpdir(), 'flow-git-daemon-'));
        await run('git', ['clone', '-q', '--bare', git.url('daemon-site'), join(daemonRoot, 'site.git')]);
        const port = await freePort();
        daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${daemonRoot}`, '--listen=127.0.0.1', `--port=${port}`, daemonRoot], {
          stdio: 'ignore',
        });
        daemonUrl = `git://127.0.0.1:${port}/site.git`;
        await eventually(() => run('git', ['ls-remote', daemonUrl]), 15_000);
      });
      afterAll(async () => {
        daemon?.kill();
        await rm(daemonRoot, { recursive: true, force: true });
      });

      it.each([
        ['git:// (a live git daemon)', () => daemonUrl],
        ['file://', () => 'file:///etc/passwd'],
        ['a local path', () => '/srv/git/site.git'],
        ['ssh://', () => 'ssh://git@github.com/acme/site.git'],
        ['scp-like ssh', () => 'git@github.com:acme/site.git'],
        ['ext::', () => 'ext::sh -c touch% /tmp/pwned'],
        ['fd::', () => 'fd::17'],
        ['a transport helper (<helper>::<address>)', () => 'testgit::https://github.com/acme/site.git'],
        ['credentials in the URL', () => 'https://user:hunter2@github.com/acme/site.git'],
        ['a user name in the URL', () => 'https://user@github.com/acme/site.git'],
        ['an option smuggled as a URL', () => '--upload-pack=touch /tmp/pwned'],
        ['not a URL', () => 'github.com/acme/site'],
      ])('%s is refused with 400 repository_not_allowed, and nothing is saved', async (_what, url) => {
        const project = await createProject(t, token, `flow-refused-${Math.random().toString(36).slice(2, 10)}`);
        const api = buildsApi(t, token, project.id);
        const res = await api.connect({ repository: url(), productionBranch: 'main' }).expect(400);
        expect(res.body).toMatchObject({ statusCode: 400, code: 'repository_not_allowed', message: expect.any(String) });
        expect(res.body.message.length).toBeGreaterThan(10);
        expect((await api.settings().expect(404)).body).toMatchObject({ code: 'git_not_connected' });
      });

      it('a refused URL leaves a connected project as it was', async () => {
        git.createRepo('kept', contentSite('kept'));
        const project = await createProject(t, token, 'flow-refused-kept');
        const api = buildsApi(t, token, project.id);
        const before = (await api.connect({ repository: git.url('kept'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200)).body;
        await api.connect({ repository: 'file:///etc', productionBranch: 'other', outputDirectory: 'elsewhere' }).expect(400);
        expect((await api.settings().expect(200)).body).toEqual(before);
      });
    });
  });

  describe('with the default policy (GIT_ALLOW_PRIVATE_ADDRESSES unset)', () => {
    let t: TestApp;
    let token: string;
    let projectId: string;
    beforeAll(async () => {
      t = await startTestApp();
      token = (await createApiToken(t, await registerUser(t), { scopes: ['deploy', 'read', 'admin'] })).token;
      projectId = (await createProject(t, token, 'flow-policy')).id;
    });
    afterAll(() => t?.close());

    it.each([
      ['http://', 'http://github.com/acme/site.git', /http|https/i],
      ['http on loopback', 'http://127.0.0.1:8080/acme/site.git', /http|loopback|private/i],
      ['loopback', 'https://127.0.0.1/acme/site.git', /loopback|private|not allowed/i],
      ['loopback elsewhere in 127/8', 'https://127.1.2.3/acme/site.git', /loopback|private|not allowed/i],
      ['loopback as one decimal number', 'https://2130706433/acme/site.git', /loopback|private|not allowed/i],
      ['loopback in hex', 'https://0x7f.0.0.1/acme/site.git', /loopback|private|not allowed/i],
      ['IPv6 loopback', 'https://[::1]/acme/site.git', /loopback|private|not allowed/i],
      ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/acme/site.git', /loopback|private|not allowed/i],
      ['a name that resolves to loopback', 'https://localhost/acme/site.git', /loopback|private|not allowed/i],
      ['the unspecified address', 'https://0.0.0.0/acme/site.git', /private|unspecified|not allowed|loopback/i],
      ['10/8', 'https://10.1.2.3/acme/site.git', /private|not allowed/i],
      ['172.16/12', 'https://172.20.0.5/acme/site.git', /private|not allowed/i],
      ['192.168/16', 'https://192.168.1.10/acme/site.git', /private|not allowed/i],
      ['link-local (the cloud metadata address)', 'https://169.254.169.254/latest/meta-data/', /link-local|metadata|private|not allowed/i],
      ['IPv6 unique local', 'https://[fd00::1]/acme/site.git', /private|unique|not allowed/i],
      ['IPv6 link-local', 'https://[fe80::1]/acme/site.git', /link-local|private|not allowed/i],
    ])('%s is refused with 400 repository_not_allowed saying why', async (_what, url, why) => {
      const res = await buildsApi(t, token, projectId).connect({ repository: url, productionBranch: 'main' }).expect(400);
      expect(res.body).toMatchObject({ code: 'repository_not_allowed' });
      expect(res.body.message).toMatch(why);
      expect((await buildsApi(t, token, projectId).settings().expect(404)).body).toMatchObject({ code: 'git_not_connected' });
    });

    it('a public https:// URL is accepted', async () => {
      // An address, not a name: the answer must not depend on this machine's DNS.
      const repository = 'https://140.82.112.3/acme/site.git';
      const res = await buildsApi(t, token, projectId).connect({ repository, productionBranch: 'main' }).expect(200);
      expect(res.body).toMatchObject({ repository, productionBranch: 'main' });
    });
  });
});
