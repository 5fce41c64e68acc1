import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { runCli } from '../clients/cli-process';
import type { TestApp } from '../helpers/app';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { createApiToken, registerUser } from '../helpers/identity';
import { fetchSite, site } from '../helpers/sites';
import {
  buildsApi,
  createProject,
  followLog,
  type Gate,
  nodeSite,
  parseLog,
  phasesOf,
  RENDER_CONTENT,
  startBuildApp,
  startGate,
  waitAtGate,
} from './flow-support';

jest.setTimeout(180_000);

/**
 * Issue #28, "What it must show", as a user sees it: a real Git repository served over
 * HTTP by `git http-backend`, holding a small site whose build script is `node build.js`;
 * connect it, build, watch the log stream, see the site live; a second commit; a failing
 * build keeps the live version; another branch builds a preview; a build and a CLI deploy
 * of the same files make identical versions.
 */
describe('Builds from Git: connect, build, publish (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let gate: Gate;
  let token: string;

  beforeAll(async () => {
    [t, git, gate] = await Promise.all([startBuildApp(), startGitServer(), startGate()]);
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] })).token;
  });
  afterAll(async () => {
    await t?.close();
    await git?.close();
    await gate?.close();
  });

  describe('one project through its life', () => {
    let project: { id: string; slug: string; url: string };
    let api: ReturnType<typeof buildsApi>;
    let firstSha: string;
    let liveBuild: { id: string; deploymentId: string | null };

    // The first build stops half way, at a gate the test opens: the log must be seen growing while it runs.
    const gatedBuild = () => `const fs = require('node:fs');
(async () => {
  console.log('rendering, waiting for the gate');
  ${waitAtGate(gate.url('first-build'))}
  const content = fs.readFileSync('content.txt', 'utf8').trim();
  fs.mkdirSync('dist', { recursive: true });
  fs.writeFileSync('dist/index.html', '<h1>' + content + '</h1>\\n');
  console.log('rendered dist/index.html: ' + content);
})().catch((err) => { console.error(err); process.exit(1); });
`;

    beforeAll(async () => {
      project = await createProject(t, token, 'flow-site');
      api = buildsApi(t, token, project.id);
    });

    it('connects the repository: PUT /projects/:id/git answers the settings and the webhook address', async () => {
      firstSha = git.createRepo('site', nodeSite(gatedBuild(), { 'content.txt': 'Hello from v1\n' }));
      const res = await api.connect({ repository: git.url('site'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
      expect(res.body).toMatchObject({
        projectId: project.id,
        repository: git.url('site'),
        productionBranch: 'main',
        rootDirectory: '',
        installCommand: null,
        buildCommand: null,
        outputDirectory: 'dist',
        nodeVersion: null,
        hasAccessToken: false,
      });
      expect(res.body.webhookUrl).toMatch(new RegExp(`/hooks/git/${project.id}$`));
      expect((await api.settings().expect(200)).body).toEqual(res.body);
    });

    it('builds the production branch: the log streams as the build runs, phase by phase, and the site goes live', async () => {
      const started = await api.start({}).expect(202);
      expect(started.body).toMatchObject({ id: expect.stringMatching(/^bld_/), projectId: project.id, trigger: 'manual', ref: 'main', pullRequest: null });
      expect(['queued', 'running']).toContain(started.body.status);
      const buildId = started.body.id as string;

      const log = followLog(t, token, project.id, buildId);
      expect(await log.status).toBe(200);
      expect((await log.headers)['content-type']).toBe('text/plain; charset=utf-8');

      // Half way: the build command waits at the gate. What came so far arrived before the build ended.
      const soFar = await log.waitFor(/\[build\] .*rendering, waiting for the gate/);
      expect((await api.get(buildId).expect(200)).body.status).toBe('running');
      const early = phasesOf(parseLog(soFar.slice(0, soFar.lastIndexOf('\n') + 1)));
      expect(early).toEqual(expect.arrayContaining(['clone', 'install', 'build']));
      expect(early).not.toContain('upload');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBeNull();

      gate.open('first-build');
      const whole = await log.ended;
      expect(log.chunks.length).toBeGreaterThan(1);
      const lines = parseLog(whole);
      const phases = phasesOf(lines);
      // Each phase in its order (detect and deploy may show between them).
      const order = ['clone', 'install', 'build', 'upload'].map((p) => phases.indexOf(p));
      expect(order.every((i) => i >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      for (let i = 1; i < lines.length; i++) expect(lines[i].at.getTime()).toBeGreaterThanOrEqual(lines[i - 1].at.getTime());
      expect(lines.some((l) => l.phase === 'build' && l.text.includes('rendered dist/index.html: Hello from v1'))).toBe(true);

      const build = (await api.get(buildId).expect(200)).body;
      expect(build).toMatchObject({
        status: 'ready',
        trigger: 'manual',
        ref: 'main',
        branch: 'main',
        commitSha: firstSha,
        commitMessage: 'first commit',
        deploymentId: expect.stringMatching(/^dep_/),
        url: project.url,
        error: null,
      });
      expect(build.detected).toMatchObject({ packageManager: 'npm', buildCommand: expect.stringContaining('build'), outputDirectory: 'dist' });
      expect(build.durationMs).toEqual(expect.any(Number));
      expect(new Date(build.finishedAt).getTime()).toBeGreaterThanOrEqual(new Date(build.startedAt).getTime());
      // The stored log is the streamed one.
      expect((await api.logs(buildId).expect(200)).text).toBe(whole);

      // Live at the project's own address, with the built content.
      expect((await site(t, project.slug).get('/').expect(200)).text).toBe('<h1>Hello from v1</h1>\n');
      expect((await fetchSite(t, build.url)).body).toBe('<h1>Hello from v1</h1>\n');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBe(build.deploymentId);
      liveBuild = build;
    });

    it('builds a second commit: the new content goes live and the list shows both, newest first', async () => {
      const secondSha = git.commit('site', { 'content.txt': 'Hello from v2\n' }, { message: 'second commit' });
      const { build, log } = await api.run();
      expect(build).toMatchObject({ status: 'ready', branch: 'main', commitSha: secondSha, commitMessage: 'second commit', error: null });
      expect(log).toContain('rendered dist/index.html: Hello from v2');
      expect((await site(t, project.slug).get('/').expect(200)).text).toBe('<h1>Hello from v2</h1>\n');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBe(build.deploymentId);

      const list = (await api.list().expect(200)).body;
      expect(list.meta).toMatchObject({ total: 2, page: 1 });
      expect(list.data.map((b: { id: string }) => b.id)).toEqual([build.id, liveBuild.id]);
      liveBuild = build;
    });

    it('a failing build keeps the live version, and its error says why', async () => {
      const deploymentsBefore = (await api.deployments().expect(200)).body.meta.total;
      git.commit(
        'site',
        { 'build.js': `console.error('cannot render: content.txt has no title');\nprocess.exit(1);\n`, 'content.txt': 'Broken v3\n' },
        { message: 'break the build' },
      );
      const { build, log } = await api.run();
      expect(build).toMatchObject({ status: 'failed', deploymentId: null, commitMessage: 'break the build' });
      expect(build.error).toEqual(expect.any(String));
      // Why: the build command failed, with its exit code.
      expect(build.error).toMatch(/build/i);
      expect(build.error).toMatch(/\b1\b/);
      const lines = parseLog(log);
      expect(lines.some((l) => l.phase === 'build' && l.text.includes('cannot render: content.txt has no title'))).toBe(true);
      expect(phasesOf(lines)).not.toContain('upload');

      expect((await site(t, project.slug).get('/').expect(200)).text).toBe('<h1>Hello from v2</h1>\n');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBe(liveBuild.deploymentId);
      expect((await api.deployments().expect(200)).body.meta.total).toBe(deploymentsBefore);
    });

    it('a build of another branch is a preview: not live, served at its own url', async () => {
      const featureSha = git.commit(
        'site',
        { 'build.js': RENDER_CONTENT, 'content.txt': 'Feature preview\n' },
        { branch: 'feature', from: 'main', message: 'feature work' },
      );
      const { build } = await api.run({ ref: 'feature' });
      expect(build).toMatchObject({ status: 'ready', ref: 'feature', branch: 'feature', commitSha: featureSha, deploymentId: expect.stringMatching(/^dep_/) });
      expect(build.url).not.toBe(project.url);
      expect((await fetchSite(t, build.url!)).body).toBe('<h1>Feature preview</h1>\n');
      // The live site is still the production branch's last good build.
      expect((await site(t, project.slug).get('/').expect(200)).text).toBe('<h1>Hello from v2</h1>\n');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBe(liveBuild.deploymentId);

      // The list filters by branch and by status.
      const byBranch = (await api.list('?branch=feature').expect(200)).body;
      expect(byBranch.data.map((b: { id: string }) => b.id)).toEqual([build.id]);
      const failed = (await api.list('?status=failed').expect(200)).body;
      expect(failed.data.map((b: { commitMessage: string }) => b.commitMessage)).toEqual(['break the build']);
    });
  });

  it('a build and a CLI deploy of the same files make identical versions (same paths, hashes, sizes, types)', async () => {
    // Text, nested paths, bytes that are not UTF-8, and a file large enough to go by PUT /v1/blobs from the CLI.
    const assetsBuild = `const fs = require('node:fs');
fs.mkdirSync('out/assets/img', { recursive: true });
fs.writeFileSync('out/index.html', '<!doctype html><title>assets</title><script src="/assets/app.js"></script>\\n');
fs.writeFileSync('out/assets/app.js', 'console.log("app");\\n');
fs.writeFileSync('out/assets/style.css', 'body { color: #333 }\\n');
fs.writeFileSync('out/data.json', JSON.stringify({ built: true, items: [1, 2, 3] }));
fs.writeFileSync('out/assets/img/pixel.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)));
fs.writeFileSync('out/big.txt', 'line of text\\n'.repeat(60000));
console.log('wrote out/');
`;
    const files = nodeSite(assetsBuild);
    git.createRepo('assets', files);
    const built = await createProject(t, token, 'assets-built');
    const api = buildsApi(t, token, built.id);
    await api.connect({ repository: git.url('assets'), productionBranch: 'main', outputDirectory: 'out' }).expect(200);
    const { build } = await api.run();
    expect(build.status).toBe('ready');
    const viaBuild = (await api.deployment(build.deploymentId!).expect(200)).body.files;

    // The same repository, built on the user's machine and deployed with the CLI (digest first).
    const home = await mkdtemp(join(tmpdir(), 'flow-cli-'));
    try {
      const checkout = join(home, 'assets');
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(checkout, path)), { recursive: true });
        await writeFile(join(checkout, path), content);
      }
      await promisify(execFile)(process.execPath, ['build.js'], { cwd: checkout });
      const cli = await runCli(['--json', 'deploy', join(checkout, 'out'), '--project', 'assets-cli'], {
        HOME: home,
        STATICHOST_CONFIG: join(home, 'config.json'),
        STATICHOST_API_URL: t.baseUrl,
        STATICHOST_TOKEN: token,
      });
      expect(cli).toMatchObject({ code: 0 });
      const deployed = JSON.parse(cli.stdout);
      const cliProject = (
        await t
          .http()
          .get('/projects')
          .set({ Authorization: `Bearer ${token}` })
          .expect(200)
      ).body.data.find((p: { slug: string }) => p.slug === 'assets-cli');
      const viaCli = (await buildsApi(t, token, cliProject.id).deployment(deployed.id).expect(200)).body.files;

      const key = (f: { path: string; sha256: string; size: number; contentType: string }) => ({
        path: f.path,
        sha256: f.sha256,
        size: f.size,
        contentType: f.contentType,
      });
      const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
      expect(viaBuild.map(key).sort(byPath)).toEqual(viaCli.map(key).sort(byPath));
      expect(viaBuild).toHaveLength(6);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
