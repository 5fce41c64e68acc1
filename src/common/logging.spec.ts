import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

import { createLogger, httpLogger, requestLogLevel } from './logging';

/** A real HTTP server behind httpLogger, answering the status the path names (`/404`). */
async function serve(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  const log = httpLogger(createLogger(level, destination));
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
