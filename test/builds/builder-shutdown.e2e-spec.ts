import { Builder } from '../../src/builds/queue/builder.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, registerUser, type UserSession } from '../helpers/identity';

jest.setTimeout(120_000);

/** A builder shutting down takes no new build: one taken then would run on while the app closes its database pool. */
describe('Builder shutdown (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let owner: UserSession;

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', { 'index.html': '<h1>hi</h1>' });
    t = await startTestApp({ env: { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    owner = await registerUser(t);
  });

  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  it('stops taking builds before it stops its running ones: a build queued meanwhile stays queued for another builder', async () => {
    const projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'Shut' })).body.id;
    await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({ repository: git.url('site'), productionBranch: 'main' })
      .expect(200);
    await t.app.get(Builder).onModuleDestroy();
    const { body } = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({}).expect(202);
    // pg-boss polls every 0.5 s and is notified at once: a builder still working takes it well within this.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const now = await t.http().get(`/projects/${projectId}/builds/${body.id}`).set(asUser(owner));
    expect(now.body.status).toBe('queued');
  });
});
