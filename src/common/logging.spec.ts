import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

import { parseTrustProxy, type TrustProxy } from '../config/trust-proxy';
import { createLogger, httpLogger, requestLogLevel } from './logging';

/** A real HTTP server behind httpLogger, answering the status the path names (`/404`). */
async function serve(level: string, trustProxy = 'false') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  const log = httpLogger(createLogger(level, destination), { trustProxy: parseTrustProxy(trustProxy) as TrustProxy });
  const server: Server = createServer((req, res) =>
    log(req, res, () => {
      res.statusCode = Number(req.url!.split('?')[0].slice(1)) || 200;
      res.end('{}');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, lines, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('httpLogger', () => {
  it('writes one line per request: path without query, credentials redacted, the request id it answered with', async () => {
    const s = await serve('info');
    try {
      const res = await fetch(`${s.base}/404?token=signed-secret`, { headers: { Authorization: 'Bearer sk_secret', Cookie: 'gate=secret' } });
      await res.text();
      await new Promise((r) => setTimeout(r, 20));
      expect(s.lines).toHaveLength(1);
      const [line] = s.lines as {
        level: string;
        msg: string;
        req: { id: string; url: string; headers: Record<string, string> };
        res: { statusCode: number };
      }[];
      expect(line).toMatchObject({ level: 'warn', msg: 'request completed', res: { statusCode: 404 } });
      expect(line.req.url).toBe('/404');
      expect(line.req.id).toBe(res.headers.get('x-request-id'));
      expect(line.req.headers.authorization).toBe('[redacted]');
      expect(JSON.stringify(line)).not.toContain('secret');
    } finally {
      await s.close();
    }
  });

  const UA = 'Mozilla/5.0 (X11; Linux x86_64) MarkerBrowser/1.2.3';

  it.each([
    ['IPv4', '203.0.113.77', '203.0.113.0/24'],
    ['IPv6', '2001:db8:abcd:12:34::77', '2001:db8:abcd::/48'],
  ])('keeps the client network (%s), not its address nor its user agent', async (_family, address, network) => {
    const s = await serve('info', 'true');
    try {
      const headers = { 'User-Agent': UA, 'X-Forwarded-For': address, 'X-Real-IP': address, Forwarded: `for="${address}"` };
      await (await fetch(`${s.base}/200`, { headers })).text();
      await new Promise((r) => setTimeout(r, 20));
      const [line] = s.lines as { req: { remoteAddress: string; headers: Record<string, string> } }[];
      expect(line.req.remoteAddress).toBe(network);
      expect(line.req.headers.host).toBeDefined();
      const text = JSON.stringify(line);
      for (const kept of [address, 'MarkerBrowser', 'x-forwarded-for', 'x-real-ip', 'forwarded']) expect(text).not.toContain(kept);
    } finally {
      await s.close();
    }
  });

  it('writes the user agent at debug level only, and never a raw address', async () => {
    const s = await serve('debug', 'true');
    try {
      await (await fetch(`${s.base}/200`, { headers: { 'User-Agent': UA, 'X-Forwarded-For': '203.0.113.77' } })).text();
      await new Promise((r) => setTimeout(r, 20));
      const [line] = s.lines as { req: { remoteAddress: string; headers: Record<string, string> } }[];
      expect(line.req.headers['user-agent']).toBe(UA);
      expect(line.req.remoteAddress).toBe('203.0.113.0/24');
      expect(JSON.stringify(line)).not.toContain('203.0.113.77');
    } finally {
      await s.close();
    }
  });

  it('builds no line below the logger level', async () => {
    const s = await serve('warn');
    try {
      await (await fetch(`${s.base}/200`)).text();
      await (await fetch(`${s.base}/503`)).text();
      await new Promise((r) => setTimeout(r, 20));
      expect(s.lines.map((l) => [l.level, (l.res as { statusCode: number }).statusCode])).toEqual([['error', 503]]);
    } finally {
      await s.close();
    }
  });

  it.each([
    [200, false, 'info'],
    [302, false, 'info'],
    [404, false, 'warn'],
    [500, false, 'error'],
    [200, true, 'error'],
  ])('status %i (failed: %s) is logged at %s', (status, failed, level) => {
    expect(requestLogLevel(status, failed)).toBe(level);
  });
});
