import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import * as tar from 'tar';

import { collectFiles, hashFiles } from '../../packages/shared/local-files';
import { BlobStore } from '../../src/blobs/blob-store.service';
import { BuildPipeline } from '../../src/builds/pipeline/build-pipeline';
import { BuildsPipelineModule } from '../../src/builds/pipeline/builds-pipeline.module';
import { BuildFailure, type BuildPhase, type PipelineJob, type ResolvedCommit } from '../../src/builds/pipeline/types';
import { ProcessRunner } from '../../src/builds/runner/process-runner';
import { DeployService } from '../../src/deployments/deploy.service';
import type { GitBuildInputs } from '../../src/git/build-inputs';
import { requestSlug } from '../../src/projects/request-slug';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { type MediumContext, newMediumService, tokenPrincipal } from '../helpers/medium';

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/**
 * BuildPipeline.run called directly on a real PostgreSQL and real local storage, with
 * the ProcessRunner (real child processes) against repositories served by git's own
 * http-backend (test/helpers/git-server.ts). No HTTP API, queue or build record: those
 * are the builds module's; this is what one builder does with one build.
 */
describe('BuildPipeline (service, real git server, process runner)', () => {
  let sut: BuildPipeline;
  let ctx: MediumContext;
  let git: GitServer;
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'pipeline-work-'));
    ({ sut, ctx } = await newMediumService(BuildPipeline, {
      imports: [BuildsPipelineModule],
      env: { GIT_ALLOW_PRIVATE_ADDRESSES: 'true', BUILD_WORK_DIR: workDir },
    }));
    git = await startGitServer();
  });
  afterAll(async () => {
    await git?.close();
    await ctx?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  let n = 0;
  /** A project of its own (made by a first deploy, so "what is live" has a before), and its principal. */
  async function newProject() {
    const { workspaceId } = await ctx.newWorkspace('pro');
    const slug = `built-${Date.now().toString(36)}-${++n}`;
    const { project, deployment } = await ctx
      .get(DeployService)
      .deploy(tokenPrincipal(workspaceId), { slug: requestSlug(slug, 'project_slug') }, { files: [{ path: 'index.html', content: 'before' }] });
    return { workspaceId, projectId: project.id, principal: tokenPrincipal(workspaceId, project.id), firstDeploymentId: deployment.id };
  }

  interface Run {
    lines: { phase: BuildPhase; text: string; stream?: string }[];
    log: () => string;
    resolved: ResolvedCommit[];
  }

  function job(
    project: Awaited<ReturnType<typeof newProject>>,
    repo: string,
    options: { ref?: string; inputs?: Partial<GitBuildInputs>; signal?: AbortSignal; fork?: boolean } = {},
  ): { job: PipelineJob; run: Run } {
    const run: Run = { lines: [], log: () => run.lines.map((l) => `[${l.phase}] ${l.text}`).join('\n'), resolved: [] };
    const buildId = `bld_test${++n}`;
    return {
      run,
      job: {
        buildId,
        principal: project.principal,
        ref: options.ref ?? 'main',
        ...(options.fork && { fork: true, previewOnly: true }),
        inputs: {
          projectId: project.projectId,
          repository: git.url(repo),
          productionBranch: 'main',
          rootDirectory: '',
          installCommand: null,
          buildCommand: null,
          outputDirectory: null,
          nodeVersion: null,
          accessToken: null,
          env: {},
          ...options.inputs,
        },
        runner: new ProcessRunner(),
        log: { write: (phase, text, stream) => run.lines.push({ phase, text, stream }) },
        signal: options.signal ?? new AbortController().signal,
        onResolved: async (commit) => void run.resolved.push(commit),
      },
    };
  }

  const filesOf = async (deploymentId: string) =>
    (await ctx.dataSource.query('SELECT path, sha256, size FROM deployment_files WHERE deployment_id = $1 ORDER BY path', [deploymentId])) as {
      path: string;
      sha256: string;
      size: string;
    }[];
  const liveOf = async (projectId: string) =>
    (await ctx.dataSource.query('SELECT live_deployment_id FROM projects WHERE id = $1', [projectId]))[0].live_deployment_id;
  const deploymentCount = async (projectId: string) =>
    Number((await ctx.dataSource.query('SELECT count(*) AS n FROM deployments WHERE project_id = $1', [projectId]))[0].n);

  async function failure(work: Promise<unknown>): Promise<Error> {
    const err = await work.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeDefined();
    return err!;
  }

  it('a plain static folder: clones, installs and builds nothing, deploys the files (not .git) live, then removes its work folder', async () => {
    const project = await newProject();
    const head = git.createRepo('static-site', { 'index.html': '<h1>static</h1>', 'about/index.html': '<h1>about</h1>' }, { message: 'static site\n\nbody' });
    const { job: j, run } = job(project, 'static-site');
    const result = await sut.run(j);
    expect(result.commit).toEqual({ sha: head, message: 'static site', branch: 'main' });
    expect(run.resolved).toEqual([result.commit]);
    expect(result.detected).toEqual({ framework: null, packageManager: null, installCommand: null, buildCommand: null, outputDirectory: '' });
    expect(result.published).toBe(true);
    expect(await liveOf(project.projectId)).toBe(result.deploymentId);
    expect(await filesOf(result.deploymentId)).toEqual([
      { path: 'about/index.html', sha256: sha('<h1>about</h1>'), size: '14' },
      { path: 'index.html', sha256: sha('<h1>static</h1>'), size: '15' },
    ]);
    expect(run.lines.map((l) => l.phase)).toEqual(expect.arrayContaining(['clone', 'detect', 'upload', 'deploy']));
    expect(await readdir(workDir)).toEqual([]);
  });

  it('a `node build.js` site: detected build script, env given to the build (its values masked in the log), dist deployed; another branch is a preview that leaves the live version', async () => {
    const project = await newProject();
    git.createRepo('node-site', {
      'package.json': JSON.stringify({ name: 'node-site', private: true, scripts: { build: 'node build.js' } }),
      'build.js': `const fs = require('fs'); fs.mkdirSync('dist', { recursive: true }); fs.writeFileSync('dist/index.html', '<h1>' + process.env.SITE_TITLE + ' ' + process.env.CI + '</h1>'); console.log('built for', process.env.SITE_TITLE);`,
    });
    const { job: j, run } = job(project, 'node-site', { inputs: { env: { SITE_TITLE: 'Hello' } } });
    const result = await sut.run(j);
    expect(result.detected).toMatchObject({ framework: null, packageManager: 'npm', buildCommand: 'npm run build', outputDirectory: 'dist' });
    expect(await filesOf(result.deploymentId)).toEqual([{ path: 'index.html', sha256: sha('<h1>Hello true</h1>'), size: '19' }]);
    expect(run.lines.filter((l) => l.phase === 'build')).toEqual(expect.arrayContaining([{ phase: 'build', text: 'built for ***', stream: 'stdout' }]));
    expect(run.log()).not.toMatch(/npm warn/i);
    expect(result.published).toBe(true);

    git.commit(
      'node-site',
      { 'build.js': `require('fs').mkdirSync('dist'); require('fs').writeFileSync('dist/index.html', 'preview')` },
      { branch: 'feature' },
    );
    const preview = await sut.run(job(project, 'node-site', { ref: 'feature' }).job);
    expect(preview.commit.branch).toBe('feature');
    expect(preview.published).toBe(false);
    expect(await liveOf(project.projectId)).toBe(result.deploymentId);
    expect(await filesOf(preview.deploymentId)).toEqual([{ path: 'index.html', sha256: sha('preview'), size: '7' }]);
  });

  it('builds a full commit sha too (a bare commit names no branch: a preview)', async () => {
    const project = await newProject();
    const first = git.createRepo('by-sha', { 'index.html': 'first' });
    git.commit('by-sha', { 'index.html': 'second' });
    const result = await sut.run(job(project, 'by-sha', { ref: first }).job);
    expect(result.commit).toMatchObject({ sha: first, branch: null });
    expect(result.published).toBe(false);
    expect(await filesOf(result.deploymentId)).toEqual([{ path: 'index.html', sha256: sha('first'), size: '5' }]);
  });

  it('a failing build is a BuildFailure naming the exit code, and deploys nothing', async () => {
    const project = await newProject();
    git.createRepo('failing', { 'package.json': JSON.stringify({ scripts: { build: 'node -e "console.error(\'boom\'); process.exit(1)"' } }) });
    const before = await deploymentCount(project.projectId);
    const { job: j, run } = job(project, 'failing');
    const err = await failure(sut.run(j));
    expect(err).toBeInstanceOf(BuildFailure);
    expect(err.message).toBe('build command exited with 1');
    expect(run.lines).toEqual(expect.arrayContaining([expect.objectContaining({ phase: 'build', text: 'boom', stream: 'stderr' })]));
    expect(await deploymentCount(project.projectId)).toBe(before);
    expect(await liveOf(project.projectId)).toBe(project.firstDeploymentId);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('masks every env value in the log: a build that echoes a secret prints ***, even split across writes', async () => {
    const project = await newProject();
    git.createRepo('echoes-secret', {
      'package.json': JSON.stringify({ scripts: { build: 'node build.js' } }),
      'build.js': `process.stdout.write('secret is ' + process.env.API_KEY.slice(0, 6)); setTimeout(() => { process.stdout.write(process.env.API_KEY.slice(6) + '!\\n'); require('fs').mkdirSync('out'); require('fs').writeFileSync('out/a.txt', 'x'); }, 50);`,
    });
    const { job: j, run } = job(project, 'echoes-secret', { inputs: { env: { API_KEY: 'sk-very-secret-value-42' } } });
    await sut.run(j);
    expect(run.log()).toContain('secret is ***!');
    expect(run.log()).not.toContain('sk-very');
    expect(run.log()).not.toContain('secret-value-42');
  });

  it('clones a private repository with its token (as a header: never in the log), and fails clearly without it', async () => {
    const project = await newProject();
    const token = 'ghp_private-token-123456';
    git.createRepo('private-site', { 'index.html': 'private' }, { token });
    const { job: withToken, run } = job(project, 'private-site', { inputs: { accessToken: token } });
    const result = await sut.run(withToken);
    expect(await filesOf(result.deploymentId)).toEqual([{ path: 'index.html', sha256: sha('private'), size: '7' }]);
    expect(run.log()).not.toContain(token);
    expect(run.log()).not.toContain(Buffer.from(`x-access-token:${token}`).toString('base64'));
    expect(git.requests.join('\n')).not.toContain(token);

    const err = await failure(sut.run(job(project, 'private-site').job));
    expect(err).toBeInstanceOf(BuildFailure);
    expect(err.message).toMatch(/refused access/);
  });

  it('checks the repository URL again before the clone (the git module’s policy): file:// and ext:: never reach git', async () => {
    const project = await newProject();
    for (const repository of ['file:///etc', 'ext::sh -c touch% /tmp/pwned-by-build']) {
      const { job: j, run } = job(project, 'unused', { inputs: { repository } });
      const err = await failure(sut.run(j));
      expect(err).toBeInstanceOf(BuildFailure);
      expect(err.message).toMatch(/^The repository URL is refused: /);
      expect(run.resolved).toEqual([]);
    }
    expect(existsSync('/tmp/pwned-by-build')).toBe(false);
  });

  it('refuses a ref that git could read as an option or a refspec, before running git', async () => {
    const project = await newProject();
    git.createRepo('refs', { 'index.html': 'x' });
    const seen = git.requests.length;
    for (const ref of ['--upload-pack=touch /tmp/pwned', 'main:refs/heads/evil', 'a\nb']) {
      const err = await failure(sut.run(job(project, 'refs', { ref }).job));
      expect(err).toBeInstanceOf(BuildFailure);
      expect(err.message).toMatch(/^ref .*; give a branch, a tag or a commit sha$/);
    }
    expect(git.requests.length).toBe(seen);
    const missing = await failure(sut.run(job(project, 'refs', { ref: 'no-such-branch' }).job));
    expect(missing.message).toBe('clone failed: ref "no-such-branch" was not found in the repository');
  });

  it('an abort kills the running build within 5 s, rejects with the abort’s reason and deploys nothing', async () => {
    const project = await newProject();
    git.createRepo('slow', { 'package.json': JSON.stringify({ scripts: { build: 'echo started && sleep 100' } }) });
    const controller = new AbortController();
    const { job: j, run } = job(project, 'slow', { signal: controller.signal });
    const running = sut.run(j);
    const started = Date.now();
    while (!run.lines.some((l) => l.text === 'started')) {
      if (Date.now() - started > 60_000) throw new Error(`the build never started:\n${run.log()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const reason = new Error('canceled by the test');
    const abortedAt = Date.now();
    controller.abort(reason);
    expect(await failure(running)).toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    expect(await deploymentCount(project.projectId)).toBe(1);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('saves the dependency cache after the first install and restores it for the next build with the same lock file', async () => {
    const project = await newProject();
    // A dependency from a tarball in the repository: npm puts it in its cache as it would a registry download, with no network.
    // Uncompressed and ASCII-only, so the test's Git server (text files) can hold it.
    const pkgDir = await mkdtemp(join(tmpdir(), 'tiny-dep-'));
    await mkdir(join(pkgDir, 'package'));
    await writeFile(join(pkgDir, 'package/package.json'), JSON.stringify({ name: 'tiny-dep', version: '1.0.0', main: 'index.js' }));
    await writeFile(join(pkgDir, 'package/index.js'), 'module.exports = "from tiny-dep";\n');
    await tar.c({ cwd: pkgDir, file: join(pkgDir, 'tiny-dep.tgz'), portable: true, mtime: new Date(0) }, ['package']);
    const tarball = await import('node:fs/promises').then((fs) => fs.readFile(join(pkgDir, 'tiny-dep.tgz')));
    await rm(pkgDir, { recursive: true, force: true });
    expect(tarball.every((b) => b < 0x80)).toBe(true);
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    const files = {
      'package.json': JSON.stringify({
        name: 'cached',
        version: '1.0.0',
        dependencies: { 'tiny-dep': 'file:vendor/tiny-dep.tgz' },
        scripts: { build: 'node build.js' },
      }),
      'package-lock.json': JSON.stringify({
        name: 'cached',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'cached', version: '1.0.0', dependencies: { 'tiny-dep': 'file:vendor/tiny-dep.tgz' } },
          'node_modules/tiny-dep': { version: '1.0.0', resolved: 'file:vendor/tiny-dep.tgz', integrity },
        },
      }),
      'vendor/tiny-dep.tgz': tarball.toString('latin1'),
      'build.js': `require('fs').mkdirSync('dist'); require('fs').writeFileSync('dist/index.html', require('tiny-dep'));`,
    };
    git.createRepo('cached-deps', files);

    const first = job(project, 'cached-deps');
    const built = await sut.run(first.job);
    expect(built.detected).toMatchObject({ packageManager: 'npm', installCommand: 'npm ci --prefer-offline --no-audit --no-fund' });
    expect(await filesOf(built.deploymentId)).toEqual([{ path: 'index.html', sha256: sha('from tiny-dep'), size: '13' }]);
    const installLines = (run: Run) => run.lines.filter((l) => l.phase === 'install' && l.stream === 'system').map((l) => l.text);
    const key = /no dependency cache yet for this lock file \((build-cache\/\S+\.tar\.gz)\)/.exec(installLines(first.run).join('\n'))?.[1];
    expect(key).toMatch(new RegExp(`^build-cache/${project.projectId}/[0-9a-f]{64}\\.tar\\.gz$`));
    expect(installLines(first.run)).toEqual(expect.arrayContaining([expect.stringMatching(`^saved dependency cache ${key} \\(`)]));

    git.commit('cached-deps', {
      'build.js': `require('fs').mkdirSync('dist'); require('fs').writeFileSync('dist/index.html', require('tiny-dep') + ' again');`,
    });
    const second = job(project, 'cached-deps');
    await sut.run(second.job);
    expect(installLines(second.run)).toEqual(expect.arrayContaining([`restored dependency cache ${key}`]));
    expect(installLines(second.run).join('\n')).not.toContain('saved dependency cache');
  });

  it('a fork’s build never writes the dependency cache: its install scripts could leave there what the production build restores', async () => {
    const project = await newProject();
    // The fork's own postinstall writes into the package manager's cache, as a poisoner would.
    const poison = `const fs = require('fs'); const dir = process.env.npm_config_cache; fs.mkdirSync(dir, { recursive: true }); fs.writeFileSync(dir + '/poisoned.js', 'evil');`;
    git.createRepo('fork-cache', {
      'package.json': JSON.stringify({ name: 'forked', version: '1.0.0', scripts: { postinstall: 'node poison.js', build: 'node build.js' } }),
      'package-lock.json': JSON.stringify({
        name: 'forked',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name: 'forked', version: '1.0.0' } },
      }),
      'poison.js': poison,
      'build.js': `require('fs').mkdirSync('dist'); require('fs').writeFileSync('dist/index.html', 'fork');`,
    });
    const installLines = (run: Run) =>
      run.lines
        .filter((l) => l.phase === 'install' && l.stream === 'system')
        .map((l) => l.text)
        .join('\n');

    const fork = job(project, 'fork-cache', { fork: true });
    await sut.run(fork.job);
    expect(installLines(fork.run)).not.toContain('saved dependency cache');
    // The team's next build of the same lock file finds nothing the fork left.
    const team = job(project, 'fork-cache');
    await sut.run(team.job);
    expect(installLines(team.run)).toContain('no dependency cache yet for this lock file');
  });

  it('a build and a CLI deploy of the same files make identical versions (paths, hashes, sizes; hidden files and node_modules left out alike)', async () => {
    const project = await newProject();
    const site: Record<string, string> = {
      'index.html': '<h1>same</h1>',
      'assets/app.js': 'console.log(1)',
      '.well-known/security.txt': 'Contact: mailto:a@example.test',
      '.env': 'NOT_DEPLOYED=1',
      'node_modules/x/index.js': 'not deployed',
      'docs/ü.html': 'unicode',
    };
    git.createRepo('same-files', site);
    const built = await sut.run(job(project, 'same-files').job);

    // The CLI's way: its folder walker and hashes, each blob by hash, then a manifest of hashes.
    const folder = await mkdtemp(join(tmpdir(), 'cli-folder-'));
    for (const [path, content] of Object.entries(site)) {
      await mkdir(dirname(join(folder, path)), { recursive: true });
      await writeFile(join(folder, path), content);
    }
    const local = await hashFiles((await collectFiles(folder)).files);
    for (const f of local) {
      await ctx.get(BlobStore).storeUpload(project.workspaceId, { sha256: f.sha256, size: f.size }, () => createReadStream(f.absolutePath));
    }
    const cli = await ctx
      .get(DeployService)
      .deploy(project.principal, { projectId: project.projectId }, { files: local.map(({ path, sha256, size }) => ({ path, sha256, size })) });
    await rm(folder, { recursive: true, force: true });

    const fromBuild = await filesOf(built.deploymentId);
    expect(await filesOf(cli.deployment.id)).toEqual(fromBuild);
    expect(fromBuild.map((f) => f.path)).toEqual(['.well-known/security.txt', 'assets/app.js', 'docs/ü.html', 'index.html']);
  });

  it('an output folder that is missing, empty or outside the repository is a BuildFailure saying so', async () => {
    const project = await newProject();
    // No install: these builds are about their output (installCommand `true` stands for one that does nothing).
    const quick = (extra: Partial<GitBuildInputs> = {}) => ({ inputs: { installCommand: 'true', ...extra } });
    git.createRepo('no-output', { 'package.json': JSON.stringify({ scripts: { build: 'echo nothing' } }) });
    expect((await failure(sut.run(job(project, 'no-output', quick()).job))).message).toMatch(
      /^no output folder: the build wrote none of dist, build, out, public, _site/,
    );
    expect((await failure(sut.run(job(project, 'no-output', quick({ outputDirectory: 'site' })).job))).message).toMatch(
      /^output folder "site" does not exist after the build/,
    );
    expect((await failure(sut.run(job(project, 'no-output', quick({ outputDirectory: '../..' })).job))).message).toBe(
      'outputDirectory "../.." has a ".." segment',
    );
    git.createRepo('link-out', { 'package.json': JSON.stringify({ scripts: { build: 'ln -s / dist && mkdir -p empty/.hidden' } }) });
    expect((await failure(sut.run(job(project, 'link-out', quick()).job))).message).toBe('output folder "dist" is a link to outside the repository');
    expect((await failure(sut.run(job(project, 'link-out', quick({ outputDirectory: 'empty' })).job))).message).toBe(
      'output folder "empty" is empty: the build wrote no files to deploy',
    );
    expect(await deploymentCount(project.projectId)).toBe(1);
  });

  it('a symbolic link committed to the repository is checked out as a plain file holding its target: never followed', async () => {
    const project = await newProject();
    git.createRepo('committed-link', { 'index.html': 'home' });
    // The helper writes plain files; the link is pushed over smart HTTP as a user's `git push` would.
    const work = await mkdtemp(join(tmpdir(), 'link-push-'));
    // Async: the Git server answers from this very process.
    const sh = (args: string[]) =>
      promisify(execFile)('git', args, {
        cwd: work,
        env: {
          ...process.env,
          GIT_CONFIG_NOSYSTEM: '1',
          HOME: work,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@example.test',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@example.test',
        },
      });
    await sh(['init', '-q', '-b', 'main']);
    await sh(['fetch', '-q', git.url('committed-link'), 'main']);
    await sh(['reset', '-q', '--hard', 'FETCH_HEAD']);
    await symlink('/etc/hostname', join(work, 'leak.txt'));
    await sh(['add', 'leak.txt']);
    await sh(['commit', '-q', '-m', 'a link out']);
    await sh(['push', '-q', git.url('committed-link'), 'HEAD:refs/heads/main']);
    await rm(work, { recursive: true, force: true });

    const result = await sut.run(job(project, 'committed-link').job);
    expect(await filesOf(result.deploymentId)).toEqual([
      { path: 'index.html', sha256: sha('home'), size: '4' },
      { path: 'leak.txt', sha256: sha('/etc/hostname'), size: String('/etc/hostname'.length) },
    ]);
  });

  it('a symbolic link the build makes out of the output folder is left out and named in the log, never followed', async () => {
    const project = await newProject();
    git.createRepo('link-inside', {
      'package.json': JSON.stringify({ scripts: { build: 'mkdir -p dist && echo ok > dist/index.html && ln -s /etc/hostname dist/host.txt' } }),
    });
    const { job: j, run } = job(project, 'link-inside', { inputs: { installCommand: 'true' } });
    const result = await sut.run(j);
    expect((await filesOf(result.deploymentId)).map((f) => f.path)).toEqual(['index.html']);
    expect(run.log()).toMatch(/skipped host\.txt: symbolic link to .*outside the folder/);
    expect(existsSync(join(workDir, j.buildId))).toBe(false);
  });
});
