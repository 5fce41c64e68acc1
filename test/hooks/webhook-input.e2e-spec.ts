import { randomBytes, randomUUID } from 'node:crypto';

import { GITHUB_PULL_REQUEST_OPENED, GITHUB_PUSH } from '../../src/forges/webhooks/examples.fixture';
import { buildsApi, contentSite, createProject, startBuildApp } from '../builds/flow-support';
import type { TestApp } from '../helpers/app';
import { signedDelivery } from '../helpers/forge-webhooks';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, createApiToken, registerUser } from '../helpers/identity';

jest.setTimeout(120_000);

const REPO = 'acme/odd';

/** Odd requests to POST /hooks/git/:projectId: each gets a clear 4xx (never a 500, never a hang) and records nothing. */
describe('Forge webhooks: odd input (e2e)', () => {
  let git: GitServer;
  let t: TestApp;
  let projectId: string;
  let secret: string;
  let repoUrl: string;

  const signed = (event: string, payload: unknown, delivery: string = randomUUID()) => {
    const body = JSON.stringify(payload).replaceAll('https://github.com/Codertocat/Hello-World', repoUrl.replace(/\.git$/, ''));
    return signedDelivery('github', event, body, secret, delivery);
  };

  const count = async (table: 'builds' | 'git_deliveries') =>
    Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]))[0].n);

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo(REPO, contentSite('odd'));
    repoUrl = git.url(REPO);
    t = await startBuildApp();
    const owner = await registerUser(t);
    const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read', 'admin'] })).token;
    projectId = (await createProject(t, token, 'odd-input')).id;
    await buildsApi(t, token, projectId).connect({ repository: repoUrl, productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
    secret = (await t.http().post(`/projects/${projectId}/git/webhook-secret`).set(asUser(owner)).expect(200)).body.secret as string;
  });
  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  it('a project id holding a NUL byte is a 400; odd characters or a long id are an unknown project: 401', async () => {
    const d = signed('ping', {});
    for (const id of ['%00', 'proj_%00x']) expect((await t.http().post(`/hooks/git/${id}`).set(d.headers).send(d.body)).status).toBe(400);
    for (const id of ['%E2%80%AE', 'x'.repeat(3000), '..%2F..%2Fprojects']) {
      const res = await t.http().post(`/hooks/git/${id}`).set(d.headers).send(d.body);
      expect({ id, status: res.status, code: res.body.code }).toEqual({ id, status: 401, code: 'invalid_webhook_signature' });
    }
  });

  it('the route under another letter case still reads the raw body itself: a signed delivery is verified', async () => {
    const d = signed('ping', {});
    const res = await t.http().post(`/HOOKS/Git/${projectId}`).set(d.headers).send(d.body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ event: 'ping' });
  });

  it('a pull request number past what a build records is a 400 invalid_webhook_payload, not a 500', async () => {
    const builds = await count('builds');
    for (const number of [2 ** 31, 1e300]) {
      const d = signed('pull_request', { ...GITHUB_PULL_REQUEST_OPENED, number });
      const res = await t.http().post(`/hooks/git/${projectId}`).set(d.headers).send(d.body);
      expect({ number, status: res.status, code: res.body.code }).toEqual({ number, status: 400, code: 'invalid_webhook_payload' });
    }
    expect(await count('builds')).toBe(builds);
  });

  it('a delivery id too long to be one is a 400, not a 500, and records nothing', async () => {
    const deliveries = await count('git_deliveries');
    // Random, so PostgreSQL cannot compress it under its index row limit.
    const d = signed('push', { ...GITHUB_PUSH, ref: 'refs/heads/main' }, randomBytes(4000).toString('hex'));
    const res = await t.http().post(`/hooks/git/${projectId}`).set(d.headers).send(d.body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('X-GitHub-Delivery');
    expect(await count('git_deliveries')).toBe(deliveries);
  });
});
