import { BuildsRepository } from '../../src/builds/builds.repository';
import { BuildsService, type StartBuild } from '../../src/builds/builds.service';
import { PreviewsService } from '../../src/previews/previews.service';
import type { Principal } from '../../src/shared/principal';
import { buildsApi, type BuildRecord, createProject, nodeSite, startBuildApp } from '../builds/flow-support';
import type { TestApp } from '../helpers/app';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

jest.setTimeout(240_000);

/** build.js: dist/index.html from content.txt, and dist/secret.txt from $SECRET (empty when the build does not get it). */
const SITE_BUILD = `const fs = require('node:fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', '<h1>' + fs.readFileSync('content.txt', 'utf8').trim() + '</h1>\\n');
fs.writeFileSync('dist/secret.txt', process.env.SECRET ?? '');
`;
const siteWith = (content: string) => nodeSite(SITE_BUILD, { 'content.txt': `${content}\n` });

/**
 * Issue 29, "Previews that people can share": every branch and pull request gets one
 * address under the sites domain that follows its newest ready build, served behind the
 * project's gate, kept out of search engines, covered by the TLS ask, listed by
 * GET /projects/:projectId/previews. Real app, real Git server, builds as child processes.
 */
describe('Preview aliases of branches and pull requests (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let user: UserSession;
  let token: string;
  let project: { id: string; slug: string; url: string };
  let api: ReturnType<typeof buildsApi>;
  const repo = 'preview-site';

  const host = (label: string) => `${label}.${t.config.SITES_DOMAIN}`;
  const ask = (domain: string) => t.http().get('/internal/tls/allowed').query({ domain });
  const labelOf = (url: string) => new URL(url).hostname.slice(0, -`.${t.config.SITES_DOMAIN}`.length);
  /** What the forge webhook does (area hooks): a build through BuildsService with the fields only webhooks set. */
  const startAsHook = async (request: StartBuild): Promise<BuildRecord> => {
    const principal: Principal = { kind: 'user', workspaceId: user.workspaceId, userId: user.userId, scopes: ['deploy'], projectId: project.id };
    const build = await t.app.get(BuildsService).start(principal, project.id, request);
    return api.until(build.id);
  };

  beforeAll(async () => {
    [t, git] = await Promise.all([startBuildApp({ PREVIEW_TTL: '2d' }), startGitServer()]);
    user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] })).token;
    project = await createProject(t, token, 'pv-shop');
    api = buildsApi(t, token, project.id);
    git.createRepo(repo, siteWith('main one'));
    await api.connect({ repository: git.url(repo), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
    await api.setEnv('SECRET', { value: 'team-only-s3cret', targets: ['production', 'preview'] }).expect((res) => expect(res.status).toBeLessThan(300));
    const { build } = await api.run();
    expect(build).toMatchObject({ status: 'ready', url: project.url, fork: false, forgeStatus: null, forgeError: null });
  });
  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  let firstBranchBuild: BuildRecord;
  let secondBranchBuild: BuildRecord;
  const branchLabel = 'feature-login--pv-shop';

  it('a branch build is served at <branch>--<slug>, with noindex, its url is that address, and the TLS ask allows it', async () => {
    git.commit(repo, { 'content.txt': 'login one\n' }, { branch: 'feature/login' });
    const { build } = await api.run({ ref: 'feature/login' });
    firstBranchBuild = build;
    expect(build).toMatchObject({ status: 'ready', branch: 'feature/login', url: t.config.siteUrl(branchLabel) });

    const res = await site(t, branchLabel).get('/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('login one');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect((await site(t, branchLabel).get('/no-such-page')).headers['x-robots-tag']).toBe('noindex');
    // The production site is untouched, and stays indexable.
    const live = await site(t, project.slug).get('/');
    expect(live.text).toContain('main one');
    expect(live.headers['x-robots-tag']).toBeUndefined();

    await ask(host(branchLabel)).expect(200);
    await ask(host('feature-nothing--pv-shop')).expect(404);
  });

  it('preview deployments get PREVIEW_TTL; the published one keeps the project default', async () => {
    const preview = await api.deployment(firstBranchBuild.deploymentId!).expect(200);
    expect(preview.body.ttl).toBe('2d');
    const published = (await api.deployments().expect(200)).body.data.find((d: { status: string }) => d.status === 'live');
    expect(published.ttl).toBe('7d');
  });

  it('a second build of the branch moves the same address to the new content; an older build finishing late does not move it back', async () => {
    const sha = git.commit(repo, { 'content.txt': 'login two\n' }, { branch: 'feature/login' });
    const { build } = await api.run({ ref: 'feature/login' });
    secondBranchBuild = build;
    expect(build).toMatchObject({ status: 'ready', url: t.config.siteUrl(branchLabel), commitSha: sha });
    expect((await site(t, branchLabel).get('/')).text).toContain('login two');

    // The first build's deployment reaching point() now, as a slow builder would: refused.
    const previews = t.app.get(PreviewsService);
    const builds = t.app.get(BuildsRepository);
    const moved = await t.dataSource.transaction((m) =>
      previews.point(m, {
        projectId: project.id,
        slug: project.slug,
        source: { kind: 'branch', branch: 'feature/login' },
        deploymentId: firstBranchBuild.deploymentId!,
        buildId: firstBranchBuild.id,
        commitSha: firstBranchBuild.commitSha,
        branch: 'feature/login',
        supersedes: (manager, served) => builds.startedAfter(manager, firstBranchBuild.id, served),
      }),
    );
    expect(moved).toBeNull();
    expect((await site(t, branchLabel).get('/')).text).toContain('login two');
  });

  it('a pull request build is served at pr-<n>--<slug> and never publishes, even when its head branch is called like the production branch', async () => {
    const sha = git.commit(repo, { 'content.txt': 'pull request seven\n' }, { branch: 'contrib-main' });
    git.setRef(repo, 'refs/pull/7/head', sha);
    const build = await startAsHook({ ref: 'refs/pull/7/head', trigger: 'pull_request', pullRequest: 7, branch: 'main', createdBy: 'hook:github' });
    expect(build).toMatchObject({
      status: 'ready',
      trigger: 'pull_request',
      pullRequest: 7,
      branch: 'main',
      commitSha: sha,
      url: t.config.siteUrl('pr-7--pv-shop'),
    });

    expect((await site(t, 'pr-7--pv-shop').get('/')).text).toContain('pull request seven');
    expect((await site(t, project.slug).get('/')).text).toContain('main one');
    const deployment = await api.deployment(build.deploymentId!).expect(200);
    expect(deployment.body.status).not.toBe('live');
    // A branch build gets the project's variables (so the fork check below can fail).
    expect((await site(t, 'pr-7--pv-shop').get('/secret.txt')).text).toBe('team-only-s3cret');
  });

  it('a pull request from a fork builds without the project’s variables', async () => {
    const sha = git.commit(repo, { 'content.txt': 'from a fork\n' }, { branch: 'fork-work' });
    git.setRef(repo, 'refs/pull/8/head', sha);
    const build = await startAsHook({
      ref: 'refs/pull/8/head',
      trigger: 'pull_request',
      pullRequest: 8,
      branch: 'patch-1',
      fork: true,
      createdBy: 'hook:github',
    });
    expect(build).toMatchObject({ status: 'ready', fork: true, url: t.config.siteUrl('pr-8--pv-shop') });
    expect((await site(t, 'pr-8--pv-shop').get('/')).text).toContain('from a fork');
    const secret = await site(t, 'pr-8--pv-shop').get('/secret.txt');
    expect(secret.status).toBe(200);
    expect(secret.text).toBe('');
  });

  it('GET /projects/:projectId/previews lists the live aliases, most recently updated first; other projects’ tokens see nothing', async () => {
    const res = await t.http().get(`/projects/${project.id}/previews`).set(bearer(token)).expect(200);
    expect(res.body.meta).toEqual({ total: 3, page: 1, limit: 20, totalPages: 1 });
    expect(res.body.data.map((p: { alias: string }) => p.alias)).toEqual(['pr-8--pv-shop', 'pr-7--pv-shop', branchLabel]);
    expect(res.body.data[2]).toEqual({
      alias: branchLabel,
      kind: 'branch',
      branch: 'feature/login',
      pullRequest: null,
      url: t.config.siteUrl(branchLabel),
      deploymentId: secondBranchBuild.deploymentId,
      buildId: secondBranchBuild.id,
      commitSha: secondBranchBuild.commitSha,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body.data[0]).toMatchObject({ kind: 'pull_request', pullRequest: 8, branch: 'patch-1' });
    const paged = await t.http().get(`/projects/${project.id}/previews?limit=1&page=2`).set(bearer(token)).expect(200);
    expect(paged.body.data.map((p: { alias: string }) => p.alias)).toEqual(['pr-7--pv-shop']);

    const other = await createProject(t, token, 'pv-other');
    const bound = (await createApiToken(t, user, { scopes: ['read'], projectId: other.id })).token;
    await t.http().get(`/projects/${project.id}/previews`).set(bearer(bound)).expect(404);
    expect((await t.http().get(`/projects/${other.id}/previews`).set(bearer(bound)).expect(200)).body.data).toEqual([]);
    await t.http().get(`/projects/${project.id}/previews?limit=0`).set(bearer(token)).expect(400);
  });

  it('the project’s gate applies to alias hosts, with noindex on the gate page', async () => {
    await t.http().patch(`/projects/${project.id}`).set(bearer(token)).send({ gate_type: 'password', password: 'let me in please' }).expect(200);
    const res = await site(t, branchLabel).get('/');
    expect(res.status).not.toBe(200);
    expect(res.text).not.toContain('login two');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    await t.http().patch(`/projects/${project.id}`).set(bearer(token)).send({ gate_type: 'none' }).expect(200);
    expect((await site(t, branchLabel).get('/')).text).toContain('login two');
  });

  it('removeAlias (branch deleted, pull request closed): the host answers 404 and the TLS ask refuses it; the deployment stays', async () => {
    const previews = t.app.get(PreviewsService);
    expect(await previews.removeAlias(project.id, { kind: 'pull_request', number: 7 })).toBe('pr-7--pv-shop');
    expect(await previews.removeAlias(project.id, { kind: 'pull_request', number: 7 })).toBeNull();
    const res = await site(t, 'pr-7--pv-shop').get('/');
    expect(res.status).toBe(404);
    expect(res.headers['x-robots-tag']).toBe('noindex');
    await ask(host('pr-7--pv-shop')).expect(404);

    expect(await previews.removeAlias(project.id, { kind: 'branch', branch: 'feature/login' })).toBe(branchLabel);
    expect((await site(t, branchLabel).get('/')).status).toBe(404);
    await ask(host(branchLabel)).expect(404);
    await api.deployment(secondBranchBuild.deploymentId!).expect(200);
    const list = await t.http().get(`/projects/${project.id}/previews`).set(bearer(token)).expect(200);
    expect(list.body.data.map((p: { alias: string }) => p.alias)).toEqual(['pr-8--pv-shop']);
  });

  it('a short label another project holds (its slug renamed since) makes the newer alias take the hashed form', async () => {
    // "x--pv-taken" belongs to a project whose slug was pv-taken when its branch x was built.
    const holder = await createProject(t, token, 'pv-holder');
    const holderDeployment = await deploySite(t, token, holder.slug, [{ path: 'index.html', content: 'holder' }]);
    const previews = t.app.get(PreviewsService);
    const point = (projectId: string, slug: string, deploymentId: string) =>
      t.dataSource.transaction((m) =>
        previews.point(m, { projectId, slug, source: { kind: 'branch', branch: 'x' }, deploymentId, buildId: null, commitSha: null, branch: 'x' }),
      );
    expect(await point(holder.id, 'pv-taken', holderDeployment.id)).toBe('x--pv-taken');

    const taker = await createProject(t, token, 'pv-taken');
    const takerDeployment = await deploySite(t, token, taker.slug, [{ path: 'index.html', content: 'taker' }]);
    const label = await point(taker.id, 'pv-taken', takerDeployment.id);
    expect(label).toMatch(/^x--pv-taken--[a-z]{12}$/);
    expect((await site(t, 'x--pv-taken').get('/')).text).toContain('holder');
    expect((await site(t, label!).get('/')).text).toContain('taker');
    // Stable: the next build of the branch keeps the hashed address.
    expect(await point(taker.id, 'pv-taken', takerDeployment.id)).toBe(label);
  });
});
