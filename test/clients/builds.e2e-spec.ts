import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { createApiToken, registerUser } from '../helpers/identity';
import { fetchSite, site } from '../helpers/sites';
import { BIN, runCli } from './cli-process';

/** A site whose build is `node build.js`: it prints a line, echoes a secret, and writes dist/index.html. */
const siteFiles = (heading: string, exitCode = 0): Record<string, string> => ({
  'package.json': JSON.stringify({ name: 'site', private: true, scripts: { build: 'node build.js' } }),
  'build.js': [
    "const fs = require('node:fs');",
    `console.log('building ${heading}');`,
    "console.log('the secret is ' + (process.env.SECRET_VALUE || 'unset'));",
    `if (${exitCode} !== 0) { console.error('build.js: refusing on purpose'); process.exit(${exitCode}); }`,
    "fs.mkdirSync('dist', { recursive: true });",
    `fs.writeFileSync('dist/index.html', '<h1>${heading}</h1>');`,
  ].join('\n'),
});

const SECRET = 'hunter2-not-for-logs';
const PRIVATE_TOKEN = 'git-token-never-shown-42';
const LOG_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \[(clone|detect|install|build|upload|deploy)\] /;

// A build runs a clone and `npm run build` in child processes: slow on a loaded machine.
jest.setTimeout(180_000);

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

/**
 * Builds from Git through the clients, as a user runs them: the real `statichost` bin
 * (one process per command) and `statichost mcp` against the real app, building with the
 * process runner from a real Git server (git http-backend) on 127.0.0.1.
 */
describe('statichost CLI and MCP: builds from Git (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let home: string;
  let env: Record<string, string>;

  const cli = (args: string[], options: { input?: string; cwd?: string } = {}) => runCli(args, env, { ...options, timeoutMs: 120_000 });
  const ok = async (args: string[], options: { input?: string; cwd?: string } = {}) => {
    const res = await cli(args, options);
    if (res.code !== 0) throw new Error(`statichost ${args.join(' ')} exited ${res.code}:\n${res.stderr}\n${res.stdout}`);
    return res;
  };
  const json = async (args: string[]) => JSON.parse((await ok(['--json', ...args])).stdout);

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', siteFiles('v1'));
    git.createRepo('private-site', siteFiles('private v1'), { token: PRIVATE_TOKEN });
    git.createRepo('agent-site', siteFiles('agent v1'));
    t = await startTestApp({
      env: {
        BUILD_RUNNER: 'process',
        GIT_ALLOW_PRIVATE_ADDRESSES: 'true',
        PLANS_JSON: JSON.stringify({ free: { projects: 50, deploymentsPerMonth: 500 } }),
      },
    });
    const user = await registerUser(t);
    const { token } = await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin', 'delete'], name: 'builds e2e' });
    home = await mkdtemp(join(tmpdir(), 'statichost-builds-'));
    env = { HOME: home, STATICHOST_CONFIG: join(home, 'config.json'), STATICHOST_API_URL: t.baseUrl, STATICHOST_TOKEN: token };
    await ok(['projects', 'create', 'Built', '--slug', 'built']);
    await ok(['projects', 'create', 'Private', '--slug', 'private-built']);
    await ok(['projects', 'create', 'Agent', '--slug', 'agent-built']);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await git?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  describe('git connect, show, disconnect', () => {
    it('connects a project to a repository and prints its settings; unset commands are detected at build time', async () => {
      const res = await ok(['git', 'connect', git.url('site'), '--project', 'built', '--build-command', 'npm run build', '--output', 'dist']);
      expect(res.stdout).toContain(`Connected built to ${git.url('site')}`);
      expect(res.stdout).toMatch(/Production branch: +main/);
      expect(res.stdout).toMatch(/Build command: +npm run build/);
      expect(res.stdout).toMatch(/Install command: +\(detected at build time\)/);
      expect(res.stdout).toMatch(/Access token: +none/);
      expect(res.stdout).toContain('statichost build --project built --follow');
      const shown = await json(['git', 'show', '--project', 'built']);
      expect(shown).toMatchObject({
        repository: git.url('site'),
        productionBranch: 'main',
        rootDirectory: '',
        buildCommand: 'npm run build',
        outputDirectory: 'dist',
        installCommand: null,
        hasAccessToken: false,
      });
      expect(shown.webhookUrl).toMatch(new RegExp(`/hooks/git/${shown.projectId}$`));
    });

    it('changing one setting keeps the others', async () => {
      await ok(['git', 'connect', git.url('site'), '--project', 'built', '--node', '22']);
      expect(await json(['git', 'show', '--project', 'built'])).toMatchObject({ buildCommand: 'npm run build', outputDirectory: 'dist', nodeVersion: '22' });
      await ok(['git', 'connect', git.url('site'), '--project', 'built', '--node', '']);
      expect(await json(['git', 'show', '--project', 'built'])).toMatchObject({ buildCommand: 'npm run build', nodeVersion: null });
    });

    it('a refused repository URL fails with the API’s reason and changes nothing', async () => {
      for (const url of ['file:///etc', 'ssh://git@127.0.0.1/site.git', `https://user:pw@127.0.0.1:1/site.git`]) {
        const res = await cli(['git', 'connect', url, '--project', 'built']);
        expect(res.code).toBe(1);
        expect(res.stderr).toContain('(HTTP 400, repository_not_allowed)');
      }
      expect((await json(['git', 'show', '--project', 'built'])).repository).toBe(git.url('site'));
    });

    it('git webhook-secret prints a new secret once with the payload URL; git show only says one is set', async () => {
      const before = await ok(['git', 'show', '--project', 'built']);
      expect(before.stdout).toMatch(/Webhook secret: +none: deliveries are refused \(statichost git webhook-secret creates one\)/);
      const res = await ok(['git', 'webhook-secret', '--project', 'built']);
      const secret = /^Secret: +(\S+)$/m.exec(res.stdout)?.[1];
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.stdout).toMatch(/^Payload URL: +http:\/\/\S+\/hooks\/git\/proj_\S+$/m);
      const shown = await ok(['git', 'show', '--project', 'built']);
      expect(shown.stdout).toMatch(/Webhook secret: +set \(never shown\)/);
      expect(shown.stdout).not.toContain(secret);
      expect(JSON.stringify(await json(['git', 'show', '--project', 'built']))).not.toContain(secret);
      const again = await json(['git', 'webhook-secret', '--project', 'built']);
      expect(again).toEqual({ webhookUrl: expect.stringMatching(/\/hooks\/git\/proj_/), secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(again.secret).not.toBe(secret);
    });

    it('git connect --build-fork-pull-requests and --forge set those two; later connects keep them; a bad forge is a usage error', async () => {
      await ok(['git', 'connect', git.url('site'), '--project', 'built', '--build-fork-pull-requests', '--forge', 'gitea']);
      expect(await json(['git', 'show', '--project', 'built'])).toMatchObject({ buildForkPullRequests: true, forge: 'gitea', buildCommand: 'npm run build' });
      await ok(['git', 'connect', git.url('site'), '--project', 'built', '--node', '']);
      expect(await json(['git', 'show', '--project', 'built'])).toMatchObject({ buildForkPullRequests: true, forge: 'gitea' });
      const bad = await cli(['git', 'connect', git.url('site'), '--project', 'built', '--forge', 'bitbucket']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--forge: "bitbucket" is not one of github, gitlab, gitea, forgejo, auto');
      await ok(['git', 'connect', git.url('site'), '--project', 'built', '--no-build-fork-pull-requests', '--forge', 'auto']);
      expect(await json(['git', 'show', '--project', 'built'])).toMatchObject({ buildForkPullRequests: false, forge: null });
    });

    it('a project without a repository: git show and build say so', async () => {
      const shown = await cli(['git', 'show', '--project', 'agent-built']);
      expect(shown.code).toBe(1);
      expect(shown.stderr).toContain('git_not_connected');
      const build = await cli(['build', '--project', 'agent-built']);
      expect(build.code).toBe(1);
      expect(build.stderr).toContain('(HTTP 409, git_not_connected)');
    });
  });

  describe('env set, ls, rm', () => {
    it('sets a variable from stdin and never prints its value', async () => {
      const res = await ok(['env', 'set', 'SECRET_VALUE', '--project', 'built'], { input: `${SECRET}\n` });
      expect(res.stdout).toBe('Set SECRET_VALUE for production and preview builds of built; the next build uses it\n');
      expect(res.stdout + res.stderr).not.toContain(SECRET);
      const only = await ok(['env', 'set', 'PREVIEW_ONLY', '--preview', '--value-stdin', '--project', 'built', '--json'], { input: 'x' });
      expect(JSON.parse(only.stdout)).toEqual({ name: 'PREVIEW_ONLY', targets: ['preview'], updatedAt: expect.any(String) });
    });

    it('lists names and targets, sorted by name, never values', async () => {
      const res = await ok(['env', 'ls', '--project', 'built']);
      expect(res.stdout.split('\n')[0]).toMatch(/^NAME +TARGETS +UPDATED$/);
      expect(res.stdout).toMatch(/PREVIEW_ONLY +preview /);
      expect(res.stdout).toMatch(/SECRET_VALUE +production,preview /);
      expect(res.stdout).not.toContain(SECRET);
      const listed = await json(['env', 'ls', '--project', 'built']);
      expect(listed.data.map((v: { name: string }) => v.name)).toEqual(['PREVIEW_ONLY', 'SECRET_VALUE']);
      expect(JSON.stringify(listed)).not.toContain(SECRET);
    });

    it('refuses a bad name before asking, and an empty value', async () => {
      const bad = await cli(['env', 'set', 'NOT-A-NAME', '--project', 'built'], { input: 'v' });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("value 'NOT-A-NAME' is invalid for argument 'NAME'");
      const empty = await cli(['env', 'set', 'EMPTY', '--project', 'built'], { input: '' });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('No value for EMPTY');
    });

    it('removes a variable; removing it again is env_var_not_found', async () => {
      expect((await ok(['env', 'rm', 'PREVIEW_ONLY', '--project', 'built'])).stdout).toBe('Removed PREVIEW_ONLY from built\n');
      expect((await json(['env', 'ls', '--project', 'built'])).data.map((v: { name: string }) => v.name)).toEqual(['SECRET_VALUE']);
      const again = await cli(['env', 'rm', 'PREVIEW_ONLY', '--project', 'built']);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('(HTTP 404, env_var_not_found)');
    });
  });

  describe('build, builds, logs', () => {
    let firstBuild: string;

    it('build --follow streams the log as it runs, masks the secret, and ends with the live url', async () => {
      const res = await ok(['build', '--project', 'built', '--follow']);
      expect(res.stderr).toMatch(/^Build bld_\S+ of built \(main\) is (queued|running); its log follows/m);
      const lines = res.stdout.trimEnd().split('\n');
      const last = lines.pop()!;
      expect(last).toMatch(new RegExp(`^Build bld_\\S+ is ready \\(\\d+\\.\\d s\\): http://built\\.localhost:${t.port}$`));
      firstBuild = /Build (bld_\S+)/.exec(last)![1];
      for (const line of lines) expect(line).toMatch(LOG_LINE);
      const phases = new Set(lines.map((l) => LOG_LINE.exec(l)![2]));
      expect([...phases]).toEqual(expect.arrayContaining(['clone', 'build']));
      expect(res.stdout).toContain('building v1');
      expect(res.stdout).toContain('the secret is ***');
      expect(res.stdout + res.stderr).not.toContain(SECRET);
      expect((await site(t, 'built').get('/').expect(200)).text).toBe('<h1>v1</h1>');
    });

    it('build without --follow prints the id and how to follow; logs --follow streams until it ends', async () => {
      const sha = git.commit('site', siteFiles('v2'), { message: 'Second version' });
      const started = await ok(['build', '--project', 'built']);
      const id = /^Started build (bld_\S+) of built \(main/.exec(started.stdout)?.[1];
      expect(id).toBeDefined();
      expect(started.stdout).toContain(`statichost logs ${id} --project built --follow`);
      const followed = await ok(['logs', id!, '--project', 'built', '--follow']);
      expect(followed.stdout).toContain('building v2');
      expect(followed.stderr).toMatch(/is ready/);
      const build = await json(['builds', '--project', 'built', '--limit', '1']);
      expect(build.data[0]).toMatchObject({ id, status: 'ready', trigger: 'manual', branch: 'main', commitSha: sha, commitMessage: 'Second version' });
      expect((await site(t, 'built').get('/').expect(200)).text).toBe('<h1>v2</h1>');
    });

    it('a failing build exits 1 with the reason, and what is live does not change', async () => {
      git.commit('site', siteFiles('broken', 1), { message: 'Break the build' });
      const res = await cli(['build', '--project', 'built', '--follow']);
      expect(res.code).toBe(1);
      expect(res.stdout).toContain('build.js: refusing on purpose');
      expect(res.stderr).toMatch(/^Error: Build bld_\S+ failed/m);
      expect((await site(t, 'built').get('/').expect(200)).text).toBe('<h1>v2</h1>');
      const asJson = await cli(['--json', 'logs', /Build (bld_\S+)/.exec(res.stderr)![1], '--project', 'built', '--follow']);
      expect(asJson.code).toBe(1);
      expect(JSON.parse(asJson.stderr.trim().split('\n').pop()!)).toMatchObject({ statusCode: null, code: 'build_failed' });
    });

    it('a build of another branch is a preview: its url is not the live site', async () => {
      git.commit('site', siteFiles('feature'), { branch: 'feature', from: 'main', message: 'A feature' });
      const res = await ok(['--json', 'build', '--project', 'built', '--ref', 'feature', '--follow']);
      const build = JSON.parse(res.stdout);
      expect(build).toMatchObject({ status: 'ready', branch: 'feature' });
      expect(build.url).not.toBe(`http://built.localhost:${t.port}`);
      // Under --json the log went to stderr, stdout holding the record alone.
      expect(res.stderr).toContain('building feature');
      expect((await site(t, 'built').get('/').expect(200)).text).toBe('<h1>v2</h1>');

      // The branch's stable address: `previews` lists it, and it serves the branch.
      const previews = await ok(['previews', '--project', 'built']);
      const [header, row, ...rest] = previews.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^KIND +FOR +COMMIT +UPDATED +URL$/);
      expect(rest).toEqual([]);
      expect(row).toMatch(
        new RegExp(`^branch +feature +${build.commitSha.slice(0, 7)} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +${build.url.replace(/\./g, '\\.')}$`),
      );
      const listed = await json(['previews', '--project', 'built']);
      expect(listed).toMatchObject({
        data: [{ kind: 'branch', branch: 'feature', pullRequest: null, url: build.url, buildId: build.id, commitSha: build.commitSha }],
        meta: { total: 1, page: 1 },
      });
      expect(await fetchSite(t, build.url)).toEqual({ status: 200, body: '<h1>feature</h1>' });
    });

    it('builds lists them newest first, filters by branch and status', async () => {
      const res = await ok(['builds', '--project', 'built']);
      const [header, ...rows] = res.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^ID +STATUS +TRIGGER +REF +DURATION +CREATED +URL$/);
      expect(rows).toHaveLength(4);
      expect(rows[0]).toMatch(/^bld_\S+ +ready +manual +feature @ [0-9a-f]{7} /);
      expect(rows[1]).toMatch(/^bld_\S+ +failed +manual +main @ /);
      expect(rows[3]).toContain(firstBuild);
      expect((await json(['builds', '--project', 'built', '--status', 'failed'])).data).toHaveLength(1);
      expect((await json(['builds', '--project', 'built', '--branch', 'feature'])).data).toHaveLength(1);
      const bad = await cli(['builds', '--project', 'built', '--status', 'done']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('HTTP 400');
    });

    it('logs prints the whole log of an ended build, one timestamped line per line, secrets masked', async () => {
      const res = await ok(['logs', firstBuild, '--project', 'built']);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) expect(line).toMatch(LOG_LINE);
      expect(res.stdout).toContain('the secret is ***');
      expect(res.stdout).not.toContain(SECRET);
      const missing = await cli(['logs', 'bld_doesnotexist', '--project', 'built']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('(HTTP 404, build_not_found)');
    });

    it('builds cancel stops a running build; an ended one answers build_finished', async () => {
      git.commit('site', { 'build.js': "setTimeout(() => {}, 60_000); console.log('sleeping');" }, { branch: 'slow', from: 'main' });
      const started = await json(['build', '--project', 'built', '--ref', 'slow']);
      const canceled = await ok(['builds', 'cancel', started.id, '--project', 'built']);
      expect(canceled.stdout).toContain(`Canceling build ${started.id}`);
      await eventually(async () => expect((await json(['builds', '--project', 'built', '--branch', 'slow'])).data[0].status).toBe('canceled'), 30_000);
      const again = await cli(['builds', 'cancel', started.id, '--project', 'built']);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('(HTTP 409, build_finished)');
    });

    it('finds the project from the folder’s link, as deploy and promote do', async () => {
      const folder = join(home, 'linked');
      await mkdir(join(folder, '.statichost'), { recursive: true });
      const { id } = await json(['projects', 'list', '--limit', '100']).then((p) => p.data.find((x: { slug: string }) => x.slug === 'built'));
      await writeFile(
        join(folder, '.statichost', 'project.json'),
        JSON.stringify({ project_slug: 'built', project_id: id, workspace_id: null, api_url: t.baseUrl }),
      );
      const res = await ok(['env', 'ls'], { cwd: folder });
      expect(res.stdout).toContain('SECRET_VALUE');
    });
  });

  describe('a private repository', () => {
    it('takes the access token on stdin, never shows it, and builds with it', async () => {
      const res = await ok(['git', 'connect', git.url('private-site'), '--project', 'private-built', '--token-stdin'], { input: `${PRIVATE_TOKEN}\n` });
      expect(res.stdout).toMatch(/Access token: +set \(never shown\)/);
      const shown = await ok(['--json', 'git', 'show', '--project', 'private-built']);
      expect(JSON.parse(shown.stdout)).toMatchObject({ hasAccessToken: true });
      expect(JSON.parse(shown.stdout)).not.toHaveProperty('accessToken');
      const build = await ok(['build', '--project', 'private-built', '--follow']);
      expect(build.stdout).toContain('building private v1');
      for (const out of [res, shown, build]) expect(out.stdout + out.stderr).not.toContain(PRIVATE_TOKEN);
      expect((await site(t, 'private-built').get('/').expect(200)).text).toBe('<h1>private v1</h1>');
    });

    it('--token-stdin with nothing on stdin is a usage error; --remove-token forgets it', async () => {
      const empty = await cli(['git', 'connect', git.url('private-site'), '--project', 'private-built', '--token-stdin'], { input: '' });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('--token-stdin: stdin was empty');
      await ok(['git', 'connect', git.url('private-site'), '--project', 'private-built', '--remove-token']);
      expect((await json(['git', 'show', '--project', 'private-built'])).hasAccessToken).toBe(false);
    });

    it('git disconnect forgets the repository', async () => {
      expect((await ok(['git', 'disconnect', '--project', 'private-built'])).stdout).toBe('Disconnected private-built from its repository\n');
      expect((await cli(['git', 'show', '--project', 'private-built'])).stderr).toContain('git_not_connected');
    });
  });

  describe('MCP tools', () => {
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
    const data = (result: ToolResult) => {
      if (result.isError) throw new Error(`tool failed: ${result.content[0]?.text}`);
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
      return result.structuredContent as any;
    };

    beforeAll(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: home,
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'pipe',
      });
      client = new Client({ name: 'statichost-builds-e2e', version: '1.0.0' });
      await client.connect(transport);
    });
    afterAll(() => client?.close());

    it('an agent connects a repository, sets a variable, starts a build, follows it and reads its log', async () => {
      const settings = data(
        await call('connect_git', { project_slug: 'agent-built', repository: git.url('agent-site'), buildCommand: 'node build.js', outputDirectory: 'dist' }),
      );
      expect(settings).toMatchObject({ repository: git.url('agent-site'), productionBranch: 'main', buildCommand: 'node build.js', hasAccessToken: false });
      expect(data(await call('set_env_var', { project_slug: 'agent-built', name: 'SECRET_VALUE', value: SECRET }))).toEqual({
        name: 'SECRET_VALUE',
        targets: ['production', 'preview'],
        updatedAt: expect.any(String),
      });
      const vars = data(await call('list_env_vars', { project_slug: 'agent-built' }));
      expect(vars.data).toEqual([{ name: 'SECRET_VALUE', targets: ['production', 'preview'], updatedAt: expect.any(String) }]);

      const started = data(await call('start_build', { project_slug: 'agent-built' }));
      expect(started).toMatchObject({ id: expect.stringMatching(/^bld_/), status: 'queued' });
      const ended = await eventually(async () => {
        const build = data(await call('get_build', { project_slug: 'agent-built', buildId: started.id }));
        expect(['ready', 'failed', 'canceled', 'timed_out']).toContain(build.status);
        return build;
      }, 90_000);
      expect(ended).toMatchObject({ status: 'ready', url: `http://agent-built.localhost:${t.port}` });

      const log = data(await call('read_build_log', { project_slug: 'agent-built', buildId: started.id }));
      expect(log).toMatchObject({ buildId: started.id, status: 'ready', finished: true, truncated: false });
      expect(log.log).toContain('the secret is ***');
      expect(log.log).not.toContain(SECRET);
      const tail = data(await call('read_build_log', { project_slug: 'agent-built', buildId: started.id, lines: 1 }));
      expect(tail).toMatchObject({ lines: 1, truncated: true });
      expect(log.log.endsWith(tail.log)).toBe(true);

      const listed = data(await call('list_builds', { project_slug: 'agent-built', status: 'ready' }));
      expect(listed.data.map((b: { id: string }) => b.id)).toEqual([started.id]);
      expect((await site(t, 'agent-built').get('/').expect(200)).text).toBe('<h1>agent v1</h1>');
    }, 120_000);

    it('an agent creates a webhook secret (shown once) and lists the previews', async () => {
      const rotated = data(await call('rotate_webhook_secret', { project_slug: 'agent-built' }));
      expect(rotated).toEqual({ webhookUrl: expect.stringMatching(/\/hooks\/git\/proj_/), secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      const settings = data(
        await call('connect_git', { project_slug: 'agent-built', repository: git.url('agent-site'), buildForkPullRequests: true, forge: 'auto' }),
      );
      expect(settings).toMatchObject({ hasWebhookSecret: true, buildForkPullRequests: true, forge: null });
      expect(JSON.stringify(settings)).not.toContain(rotated.secret);
      expect(data(await call('list_previews', { project_slug: 'built' })).data).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'branch', branch: 'feature', url: expect.stringMatching(/^http:\/\//) })]),
      );
      expect(data(await call('list_previews', { project_slug: 'agent-built' }))).toMatchObject({ data: [], meta: { total: 0 } });
    });

    it('a tool failure carries the API’s message', async () => {
      const result = await call('get_build', { project_slug: 'agent-built', buildId: 'bld_nope' });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain('(HTTP 404, build_not_found)');
      const finished = await call('cancel_build', {
        project_slug: 'agent-built',
        buildId: (data(await call('list_builds', { project_slug: 'agent-built' })).data[0] as { id: string }).id,
      });
      expect(finished.content[0].text).toContain('build_finished');
    });
  });
});
