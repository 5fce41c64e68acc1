import { DeployService } from '../../src/deployments/deploy.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, registerUser, type UserSession } from '../helpers/identity';

jest.setTimeout(120_000);

/**
 * A build canceled (or replaced) while its output is being deployed: either the cancel
 * wins and nothing goes live, or the deploy wins and the build ends ready. The race is
 * made certain by canceling through the API right as the builder calls the real deploy.
 */
describe('Builds: a cancel during the deploy (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let owner: UserSession;
  let projectId: string;
  const as = () => asUser(owner);
  const live = async () => (await t.http().get(`/projects/${projectId}`).set(as())).body;
  const build = async (id: string) => (await t.http().get(`/projects/${projectId}/builds/${id}`).set(as())).body;

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', { 'index.html': '<h1>one</h1>' });
    t = await startTestApp({ env: { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    owner = await registerUser(t);
    projectId = (await t.http().post('/projects').set(as()).send({ name: 'Raced' })).body.id;
    const res = await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(as())
      .send({ repository: git.url('site'), productionBranch: 'main' });
    expect(res.status).toBe(200);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await git?.close();
  });

  const ended = (id: string) =>
    eventually(async () => {
      const b = await build(id);
      if (b.status === 'queued' || b.status === 'running') throw new Error(`build ${id} is ${b.status}`);
      return b;
    }, 60_000);

  it('a build canceled as its deploy starts publishes nothing: what is live stays', async () => {
    const first = (await t.http().post(`/projects/${projectId}/builds`).set(as()).send({})).body;
    expect(await ended(first.id)).toMatchObject({ status: 'ready' });
    const liveBefore = (await live()).live_deployment_id ?? (await live()).liveDeploymentId;
    expect(liveBefore).toBe((await build(first.id)).deploymentId);

    git.commit('site', { 'index.html': '<h1>two</h1>' });
    const deployer = t.app.get(DeployService);
    const realDeploy = deployer.deploy.bind(deployer);
    let canceled: { status: number; body: { status?: string } } | undefined;
    let deployed: Promise<unknown> | undefined;
    const spy = jest.spyOn(deployer, 'deploy').mockImplementationOnce(async (...args) => {
      canceled = await t.http().post(`/projects/${projectId}/builds/${second.id}/cancel`).set(as());
      const done = realDeploy(...args);
      deployed = done.catch(() => undefined);
      return done;
    });
    const second = (await t.http().post(`/projects/${projectId}/builds`).set(as()).send({})).body;
    const end = await ended(second.id);
    // The build reads canceled at once; the builder's deploy settles after.
    await eventually(async () => {
      if (!deployed) throw new Error('the builder has not deployed yet');
    }, 60_000);
    await deployed;
    spy.mockRestore();
    expect(canceled).toMatchObject({ status: 202, body: { status: 'canceled' } });
    expect(end.status).toBe('canceled');
    const after = await live();
    expect(after.live_deployment_id ?? after.liveDeploymentId).toBe(liveBefore);
  });
});
