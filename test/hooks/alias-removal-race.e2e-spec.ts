import { randomUUID } from 'node:crypto';

import { GITHUB_BRANCH_DELETED, GITHUB_PULL_REQUEST_OPENED } from '../../src/forges/webhooks/examples.fixture';
import { buildsApi, createProject, type Gate, nodeSite, startBuildApp, startGate } from '../builds/flow-support';
import type { TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { signedDelivery } from '../helpers/forge-webhooks';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, createApiToken, registerUser } from '../helpers/identity';

jest.setTimeout(180_000);

const REPO = 'acme/racing';

/**
 * A pull request closed, or a branch deleted, while its build is still running: the alias
 * removal must win. The build finishing afterwards must not recreate the alias (an address
 * for a closed pull request, or a deleted branch, that nothing would ever remove).
 */
describe('Alias removal while a build of that branch or pull request runs (e2e)', () => {
  let git: GitServer;
  let gate: Gate;
  let t: TestApp;
  let projectId: string;
  let secret: string;
  let api: ReturnType<typeof buildsApi>;
  let repoUrl: string;

  /** build.js: waits at the gate named in gate.txt, then renders dist/index.html. */
  const buildJs = (gateBase: string) => `const fs = require('node:fs');
(async () => {
  const name = fs.readFileSync('gate.txt', 'utf8').trim();
  await fetch(${JSON.stringify(gateBase)} + name).then((r) => r.text());
  fs.mkdirSync('dist', { recursive: true });
  fs.writeFileSync('dist/index.html', '<h1>' + name + '</h1>\\n');
})();
`;

  const deliver = (event: string, payload: unknown) => {
    const web = repoUrl.replace(/\.git$/, '');
    const body = JSON.stringify(payload).replaceAll('https://github.com/Codertocat/Hello-World', web);
    return t
      .http()
      .post(`/hooks/git/${projectId}`)
      .set(signedDelivery('github', event, body, secret, randomUUID()).headers)
      .send(body);
  };
  const aliases = async () =>
    (await t.dataSource.query(`SELECT kind, name FROM preview_aliases WHERE project_id = $1 ORDER BY kind, name`, [projectId])) as {
      kind: string;
      name: string;
    }[];

  beforeAll(async () => {
    [git, gate] = await Promise.all([startGitServer(), startGate()]);
    git.createRepo(REPO, nodeSite(buildJs(gate.url('x').replace(/x$/, '')), { 'gate.txt': 'main\n' }));
    repoUrl = git.url(REPO);
    t = await startBuildApp();
    const owner = await registerUser(t);
    const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read', 'admin'] })).token;
    projectId = (await createProject(t, token, 'racing')).id;
    api = buildsApi(t, token, projectId);
    await api
      .connect({ repository: repoUrl, productionBranch: 'main', installCommand: 'echo nothing', buildCommand: 'node build.js', outputDirectory: 'dist' })
      .expect(200);
    secret = (await t.http().post(`/projects/${projectId}/git/webhook-secret`).set(asUser(owner)).expect(200)).body.secret as string;
  });
  afterAll(async () => {
    await t?.close();
    await gate?.close();
    await git?.close();
  });

  it('a pull request closed while its build runs keeps no alias once that build ends', async () => {
    const sha = git.commit(REPO, { 'gate.txt': 'pr\n' }, { branch: 'changes' });
    git.setRef(REPO, 'refs/pull/2/head', sha);
    const opened = await deliver('pull_request', GITHUB_PULL_REQUEST_OPENED).expect(202);
    await eventually(async () => expect(gate.arrivals).toContain('pr'), 90_000);

    const closed = await deliver('pull_request', { ...GITHUB_PULL_REQUEST_OPENED, action: 'closed' }).expect(200);
    expect(closed.body).toEqual({ event: 'pull_request', removed: null });
    gate.open('pr');
    const build = await api.until(opened.body.build.id);
    expect(build.status).toBe('canceled');
    expect(await aliases()).toEqual([]);
  });

  it('a branch deleted while its build runs keeps no alias once that build ends', async () => {
    git.commit(REPO, { 'gate.txt': 'branch\n' }, { branch: 'gone-soon' });
    const pushed = await deliver('push', { ...GITHUB_BRANCH_DELETED, ref: 'refs/heads/gone-soon', deleted: false, after: 'a'.repeat(40) }).expect(202);
    await eventually(async () => expect(gate.arrivals).toContain('branch'), 90_000);

    const deleted = await deliver('push', { ...GITHUB_BRANCH_DELETED, ref: 'refs/heads/gone-soon' }).expect(200);
    expect(deleted.body).toEqual({ event: 'push', removed: null });
    gate.open('branch');
    const build = await api.until(pushed.body.build.id);
    expect(build.status).toBe('canceled');
    expect(await aliases()).toEqual([]);
  });
});
