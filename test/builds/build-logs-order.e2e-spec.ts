import { request as httpRequest } from 'node:http';

import { followBuildLogs } from '../../packages/sdk/builds';
import { StatichostClient } from '../../packages/sdk/client';
import { BuildLogRepository } from '../../src/builds/logs/build-log.repository';
import { BuildLogsService } from '../../src/builds/logs/build-logs.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';

/**
 * A build's log lines keep their order, once each, when their chunk ids pass a power of ten
 * (99 → 100): ids were once ordered as text ('100' before '99'), which stored lines twice
 * when the log moved to storage and gave followers lines out of order, twice, or cut mid-line.
 * Build rows are written directly (no Git, no builder), so the file stays fast.
 */
describe('Build logs: line order across chunk ids (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let projectId: string;
  let logs: BuildLogsService;
  let chunks: BuildLogRepository;
  let serial = 0;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t);
    projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'Ordered' })).body.id;
    logs = t.app.get(BuildLogsService);
    chunks = t.app.get(BuildLogRepository);
  });

  afterAll(async () => {
    await t?.close();
  });

  async function build(status: 'running' | 'ready'): Promise<string> {
    const id = `bld_order${String(++serial).padStart(19, '0')}`;
    await t.dataSource.query(
      `INSERT INTO builds (id, project_id, workspace_id, status, trigger, ref, branch, created_by, started_at, finished_at, duration_ms)
       VALUES ($1, $2, $3, $4, 'manual', 'main', 'main', $5, now(), CASE WHEN $4 = 'ready' THEN now() END, CASE WHEN $4 = 'ready' THEN 1 END)`,
      [id, projectId, owner.workspaceId, status, owner.userId],
    );
    return id;
  }

  /** The next chunk ids are the two before a power of ten, then the ones from it: 98, 99, 100, 101… */
  async function nearDigitBoundary(): Promise<void> {
    const [{ next }] = await t.dataSource.query<{ next: string }[]>(`SELECT nextval(pg_get_serial_sequence('build_log_chunks', 'id'))::text AS next`);
    let power = 10;
    while (power <= Number(next) + 2) power *= 10;
    await t.dataSource.query(`SELECT setval(pg_get_serial_sequence('build_log_chunks', 'id'), $1)`, [power - 3]);
  }

  async function appendLines(buildId: string, from: number, to: number): Promise<string> {
    let text = '';
    for (let n = from; n <= to; n++) {
      const line = `2030-01-01T00:00:00.000Z [build] line ${n}\n`;
      await chunks.append(buildId, line);
      text += line;
    }
    return text;
  }

  const readLog = async (buildId: string) => (await t.http().get(`/projects/${projectId}/builds/${buildId}/logs`).set(asUser(owner)).expect(200)).text;

  it('serves a running build’s lines in the order they were written', async () => {
    const id = await build('running');
    await nearDigitBoundary();
    const written = await appendLines(id, 1, 4);
    expect(await readLog(id)).toBe(written);
  });

  it('stores every line once, in order, when the builder and the sweeper move the log at once', async () => {
    const id = await build('ready');
    await nearDigitBoundary();
    let written = await appendLines(id, 1, 4);
    await Promise.all([logs.archive(id), logs.archive(id), logs.archive(id)]);
    expect(await readLog(id)).toBe(written);
    // A canceled build's builder may still write after the sweeper moved the log: its lines are added once.
    await nearDigitBoundary();
    written += await appendLines(id, 5, 8);
    await Promise.all([logs.archive(id), logs.archive(id), logs.archive(id)]);
    expect(await readLog(id)).toBe(written);
    expect(await t.dataSource.query('SELECT id FROM build_log_chunks WHERE build_id = $1', [id])).toEqual([]);
  });

  it('gives a follower, over HTTP and through the SDK, the whole log once and in order, from the table and then from storage', async () => {
    const id = await build('running');
    await nearDigitBoundary();
    let written = await appendLines(id, 1, 4);
    const received: Buffer[] = [];
    const raw = new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${t.baseUrl}/projects/${projectId}/builds/${id}/logs?follow=1`, { headers: asUser(owner) }, (res) => {
        res.on('data', (part: Buffer) => received.push(part));
        res.on('end', () => resolve(Buffer.concat(received).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const client = new StatichostClient({ baseUrl: t.baseUrl, token: (await createApiToken(t, owner, { scopes: ['read'] })).token });
    let sdkText = '';
    const sdk = followBuildLogs(client, projectId, id, (text) => (sdkText += text), { retryDelayMs: 50 });
    // Both followers have read the lines from the table before the build ends and its log moves.
    await eventually(async () => {
      if (Buffer.concat(received).length < Buffer.byteLength(written) || Buffer.byteLength(sdkText) < Buffer.byteLength(written)) throw new Error('not yet');
    }, 30_000);
    written += await appendLines(id, 5, 6);
    await t.dataSource.query(`UPDATE builds SET status = 'ready', finished_at = now(), duration_ms = 1 WHERE id = $1`, [id]);
    await logs.archive(id);
    expect(await raw).toBe(written);
    await sdk;
    expect(sdkText).toBe(written);
  });
});
