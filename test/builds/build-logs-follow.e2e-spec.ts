import { request as httpRequest } from 'node:http';

import { followBuildLogs } from '../../packages/sdk/builds';
import { StatichostClient } from '../../packages/sdk/client';
import { BuildLogRepository } from '../../src/builds/logs/build-log.repository';
import { BuildLogsService } from '../../src/builds/logs/build-logs.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';

jest.setTimeout(180_000);

/** A build that writes numbered lines for a while, so followers join mid-build and see the switch to the stored log. */
const SITE = {
  'package.json': JSON.stringify({ name: 'site', private: true, scripts: { build: 'node build.js' } }),
  'build.js': `const fs = require('fs');
let n = 0;
const timer = setInterval(() => {
  for (let i = 0; i < 5; i++) console.log('line ' + String(++n).padStart(4, '0'));
  if (n >= 300) {
    clearInterval(timer);
    fs.mkdirSync('dist', { recursive: true });
    fs.writeFileSync('dist/index.html', '<h1>done</h1>');
  }
}, 10);`,
};

describe('Build logs: follow (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let owner: UserSession;
  let projectId: string;
  let builtId: string;

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', SITE);
    t = await startTestApp({ env: { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    owner = await registerUser(t);
    projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'Followed' })).body.id;
    const res = await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({
        repository: git.url('site'),
        productionBranch: 'main',
        installCommand: 'echo nothing to install',
        buildCommand: 'node build.js',
        outputDirectory: 'dist',
      });
    expect(res.status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  const follow = (buildId: string) =>
    new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${t.baseUrl}/projects/${projectId}/builds/${buildId}/logs?follow=1`, { headers: asUser(owner) }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  it('gives every follower the whole log once, in order, whenever it joins', async () => {
    const { body } = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({});
    const followers: Promise<string>[] = [];
    const client = new StatichostClient({ baseUrl: t.baseUrl, token: (await createApiToken(t, owner, { scopes: ['read'] })).token });
    for (let i = 0; i < 12; i++) {
      followers.push(follow(body.id));
      let sdkText = '';
      followers.push(followBuildLogs(client, projectId, body.id, (text) => (sdkText += text)).then(() => sdkText));
      await new Promise((r) => setTimeout(r, 150 + 40 * i));
    }
    const texts = await Promise.all(followers);
    await eventually(async () => {
      const b = await t.http().get(`/projects/${projectId}/builds/${body.id}`).set(asUser(owner));
      if (b.body.status !== 'ready') throw new Error(b.body.status);
    }, 60_000);
    const whole = (await t.http().get(`/projects/${projectId}/builds/${body.id}/logs`).set(asUser(owner))).text;
    expect(whole).toContain('line 0300');
    for (const text of texts) expect(text).toBe(whole);
    builtId = body.id;
  });

  it('keeps the stored log when lines come after it was moved to storage', async () => {
    // A canceled build: the sweeper may move its log while its builder still writes the last lines, then the builder moves them too.
    const logs = t.app.get(BuildLogsService);
    const chunks = t.app.get(BuildLogRepository);
    const read = async () => (await t.http().get(`/projects/${projectId}/builds/${builtId}/logs`).set(asUser(owner))).text;
    const whole = await read();
    expect(whole).toContain('line 0300');
    await chunks.append(builtId, 'late line 1\n');
    await logs.archive(builtId);
    expect(await read()).toBe(`${whole}late line 1\n`);
  });

  it('keeps every line once when the builder and the sweeper move the log at once', async () => {
    const logs = t.app.get(BuildLogsService);
    const chunks = t.app.get(BuildLogRepository);
    const read = async () => (await t.http().get(`/projects/${projectId}/builds/${builtId}/logs`).set(asUser(owner))).text;
    const whole = await read();
    // The late lines' chunk ids pass a power of ten (99999 → 100000), where the movers once
    // ordered chunks as text and stored a line twice (this step's old flake, "late line 1, 3,
    // 2, 3": it failed whenever the build's chunk ids happened to cross 9 → 10 or 99 → 100).
    await t.dataSource.query(`SELECT setval(pg_get_serial_sequence('build_log_chunks', 'id'), 99998)`);
    await chunks.append(builtId, 'late line 2\n');
    await chunks.append(builtId, 'late line 3\n');
    await Promise.all([logs.archive(builtId), logs.archive(builtId), logs.archive(builtId)]);
    expect(await read()).toBe(`${whole}late line 2\nlate line 3\n`);
  });
});
