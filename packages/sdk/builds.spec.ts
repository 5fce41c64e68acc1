import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { followBuildLogs, waitForBuild } from './builds';
import { StatichostClient } from './client';

/**
 * followBuildLogs against connections that end before the build does (a proxy's idle
 * timeout, a restarted server): a stand-in HTTP server, since the real service cannot
 * be made to drop a connection halfway through a character on demand.
 */
describe('followBuildLogs', () => {
  const log = Buffer.from('2026-01-01T00:00:00.000Z [clone] start\n2026-01-01T00:00:01.000Z [build] café ☕\n2026-01-01T00:00:02.000Z [deploy] done\n');
  let server: Server;
  let baseUrl: string;
  let connections: number;
  let reads: number;
  let readyAfterReads: number | undefined;
  let status: string;
  /** What each log connection sends before it ends ('end') or breaks ('destroy'). */
  let script: { bytes: number; then: 'end' | 'destroy' }[];

  beforeEach(async () => {
    connections = 0;
    reads = 0;
    readyAfterReads = undefined;
    status = 'running';
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/projects/proj_1/builds/bld_1/logs') {
        expect(url.searchParams.get('follow')).toBe('1');
        const step = script[connections++];
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.flushHeaders();
        res.write(log.subarray(0, step.bytes), () => {
          if (step.then === 'destroy') res.destroy();
          else {
            if (connections === script.length) status = 'ready';
            res.end();
          }
        });
        return;
      }
      if (url.pathname === '/projects/proj_1/builds/bld_1') {
        reads++;
        if (readyAfterReads !== undefined && reads >= readyAfterReads) status = 'ready';
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: 'bld_1', status }));
        return;
      }
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ statusCode: 404, message: 'Build not found', code: 'build_not_found' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = () => new StatichostClient({ baseUrl, token: 'sk_live_x' });

  it('streams the whole log once and resolves with the ended build', async () => {
    script = [{ bytes: log.length, then: 'end' }];
    let text = '';
    const build = await followBuildLogs(client(), 'proj_1', 'bld_1', (t) => (text += t), { retryDelayMs: 1 });
    expect(text).toBe(log.toString());
    expect(build).toEqual({ id: 'bld_1', status: 'ready' });
  });

  it('reconnects when a connection breaks or ends early, skipping what was shown, even inside a character', async () => {
    const inCafe = log.indexOf('é') + 1; // between the two bytes of é
    const inCup = log.indexOf('☕') + 2; // inside the three bytes of ☕
    script = [
      { bytes: inCafe, then: 'destroy' },
      { bytes: inCup, then: 'end' },
      { bytes: log.length, then: 'end' },
    ];
    const chunks: string[] = [];
    const build = await followBuildLogs(client(), 'proj_1', 'bld_1', (t) => chunks.push(t), { retryDelayMs: 1 });
    expect(chunks.join('')).toBe(log.toString());
    expect(chunks.join('')).not.toContain('\uFFFD');
    expect(connections).toBe(3);
    expect(build.status).toBe('ready');
  });

  it('gives up after `reconnects` connections in a row that bring nothing new', async () => {
    script = Array.from({ length: 10 }, () => ({ bytes: 0, then: 'end' as const }));
    const err = await followBuildLogs(client(), 'proj_1', 'bld_1', () => undefined, { reconnects: 2, retryDelayMs: 1 }).catch((e: Error) => e);
    expect(String(err)).toContain('The log of bld_1 stopped streaming 3 times in a row before the build ended (it is running)');
    expect(connections).toBe(3);
  });

  it('rejects at once with the service’s error (no retry)', async () => {
    await expect(followBuildLogs(client(), 'proj_1', 'bld_404', () => undefined)).rejects.toMatchObject({ status: 404, code: 'build_not_found' });
  });

  it('waitForBuild reads the record until the build has ended, and gives up at its timeout', async () => {
    readyAfterReads = 3;
    const seen: string[] = [];
    const build = await waitForBuild(client(), 'proj_1', 'bld_1', { intervalMs: 5, onStatus: (b) => seen.push(b.status) });
    expect(build.status).toBe('ready');
    expect(seen).toEqual(['running', 'running', 'ready']);

    status = 'running';
    readyAfterReads = undefined;
    await expect(waitForBuild(client(), 'proj_1', 'bld_1', { intervalMs: 20, timeoutMs: 50 })).rejects.toThrow(
      'bld_1 has not ended after 50 ms (it is running)',
    );
  });
});
