import type { TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { site } from '../helpers/sites';
import { alive, buildsApi, createProject, followLog, type Gate, nodeSite, parseLog, startBuildApp, startGate, waitAtGate } from './flow-support';

jest.setTimeout(180_000);

/**
 * A build that never ends on its own (it waits at a gate nobody opens), run through
 * `npm run build` so the process to kill is a grandchild of the runner's shell: its pid
 * goes to the log, so the test can check it is gone afterwards.
 */
const stuckSite = (gate: Gate, name: string) =>
  nodeSite(`(async () => {
  console.log('build pid ' + process.pid);
  ${waitAtGate(gate.url(name))}
  require('node:fs').mkdirSync('dist', { recursive: true });
  require('node:fs').writeFileSync('dist/index.html', 'should never be deployed');
})();
`);

/** Something live before the build, deployed the usual way (not by a build). */
async function deployLive(t: TestApp, token: string, projectId: string, html: string): Promise<string> {
  const res = await t
    .http()
    .post(`/projects/${projectId}/deployments`)
    .set(bearer(token))
    .send({ files: [{ path: 'index.html', content: html }] })
    .expect(201);
  return res.body.id as string;
}

/**
 * Issue #28: cancel ends a build and kills its processes; BUILD_TIMEOUT_SECONDS ends a
 * stuck one as `timed_out`; neither changes what is live.
 */
describe('Builds from Git: cancel and timeout (e2e)', () => {
  let git: GitServer;
  let gate: Gate;

  beforeAll(async () => {
    [git, gate] = await Promise.all([startGitServer(), startGate()]);
  });
  afterAll(async () => {
    await git?.close();
    await gate?.close();
  });

  describe('cancel', () => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      t = await startBuildApp();
      token = (await createApiToken(t, await registerUser(t), { scopes: ['deploy', 'read', 'admin'] })).token;
    });
    afterAll(() => t?.close());

    it('POST …/cancel of a running build: 202, the build ends `canceled`, its processes are killed, nothing live changes', async () => {
      const project = await createProject(t, token, 'flow-cancel');
      const api = buildsApi(t, token, project.id);
      const live = await deployLive(t, token, project.id, '<h1>live before the build</h1>');
      git.createRepo('stuck', stuckSite(gate, 'never-opened'));
      await api.connect({ repository: git.url('stuck'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);

      const started = await api.startOk();
      const log = followLog(t, token, project.id, started.id);
      const pid = Number(/build pid (\d+)/.exec(await log.waitFor(/build pid \d+/))![1]);
      expect(alive(pid)).toBe(true);
      expect((await api.get(started.id).expect(200)).body.status).toBe('running');

      const cancel = await api.cancel(started.id).expect(202);
      expect(cancel.body).toMatchObject({ id: started.id, projectId: project.id });
      expect(['running', 'canceled']).toContain(cancel.body.status);

      const build = await api.until(started.id, ['canceled', 'failed', 'ready', 'timed_out']);
      expect(build).toMatchObject({ status: 'canceled', deploymentId: null });
      expect(build.finishedAt).toEqual(expect.any(String));
      // The streamed log ends with the build.
      const text = await log.ended;
      expect(parseLog(text).some((l) => l.text.includes('build pid'))).toBe(true);
      await eventually(async () => expect(alive(pid)).toBe(false), 15_000);

      expect((await site(t, project.slug).get('/').expect(200)).text).toBe('<h1>live before the build</h1>');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBe(live);
      expect((await api.deployments().expect(200)).body.meta.total).toBe(1);

      // Once it has ended, there is nothing left to cancel.
      const again = await api.cancel(started.id).expect(409);
      expect(again.body).toMatchObject({ code: 'build_finished' });
      expect((await api.get(started.id).expect(200)).body.status).toBe('canceled');
    });

    it('cancel of an unknown build is 404 build_not_found', async () => {
      const project = await createProject(t, token, 'flow-cancel-unknown');
      const res = await buildsApi(t, token, project.id).cancel('bld_doesnotexist').expect(404);
      expect(res.body).toMatchObject({ code: 'build_not_found' });
    });
  });

  describe('timeout', () => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      // The smallest timeout the setting takes.
      t = await startBuildApp({ BUILD_TIMEOUT_SECONDS: '10' });
      token = (await createApiToken(t, await registerUser(t), { scopes: ['deploy', 'read', 'admin'] })).token;
    });
    afterAll(() => t?.close());

    it('a build still running after BUILD_TIMEOUT_SECONDS ends `timed_out`, its processes killed, nothing live changes', async () => {
      const project = await createProject(t, token, 'flow-timeout');
      const api = buildsApi(t, token, project.id);
      const live = await deployLive(t, token, project.id, '<h1>live before the stuck build</h1>');
      git.createRepo('stuck-timeout', stuckSite(gate, 'never-opened-either'));
      await api.connect({ repository: git.url('stuck-timeout'), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);

      const started = await api.startOk();
      const log = followLog(t, token, project.id, started.id);
      const pid = Number(/build pid (\d+)/.exec(await log.waitFor(/build pid \d+/))![1]);

      const build = await api.until(started.id, ['canceled', 'failed', 'ready', 'timed_out'], 120_000);
      expect(build).toMatchObject({ status: 'timed_out', deploymentId: null });
      // The record says why, naming the limit.
      expect(build.error).toMatch(/10 ?s|10 seconds|BUILD_TIMEOUT_SECONDS/);
      await log.ended;
      await eventually(async () => expect(alive(pid)).toBe(false), 15_000);

      expect((await site(t, project.slug).get('/').expect(200)).text).toBe('<h1>live before the stuck build</h1>');
      expect((await api.project().expect(200)).body.liveDeploymentId).toBe(live);
      expect((await api.deployments().expect(200)).body.meta.total).toBe(1);
    });
  });
});
