import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, request, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { jwtVerify } from 'jose';

import { BUILDS_KEPT_PER_PROJECT, BuildSweeper } from '../../src/builds/queue/build-sweeper.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { eventually } from '../helpers/eventually';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { countryRecord, writeMmdb } from '../helpers/mmdb';
import { freePort } from '../helpers/ports';
import { deploySite, siteHost } from '../helpers/sites';

const MB = 1024 * 1024;
/**
 * The streamed answer: larger than loopback's socket buffers can swallow (tcp_rmem's
 * maximum is 32 MB on some machines, and each of the two connections has a sender's and a
 * receiver's buffer), so an origin that finishes while the visitor reads nothing would
 * mean the proxy read it all into memory.
 */
const BIG = 96 * MB;
const SIGNING_SECRET = 'a signing secret only the origin and the project know';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A real origin server on loopback: records what reached it; a few paths behave badly on purpose. */
async function startOrigin() {
  const seen: Seen[] = [];
  const held: ServerResponse[] = [];
  const big = { written: 0, done: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(entry);
      const path = req.url!.split('?')[0];
      if (path === '/slow') return; // never answers
      if (path === '/hold') return void held.push(res);
      if (path === '/redirect') {
        res.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` });
        return void res.end();
      }
      if (path === '/cookies') {
        res.writeHead(200, {
          'Set-Cookie': ['kept=1; Path=/; HttpOnly', 'parent=1; Domain=localhost', 'statichost_gate=forged; Path=/', 'own=1; Domain=pxy.localhost'],
          'Clear-Site-Data': '"cookies"',
          'X-Accel-Redirect': '/etc/passwd',
        });
        return void res.end('cookies');
      }
      if (path === '/cached') {
        // An origin that lets every cache keep its answer, CDNs by their own headers.
        res.writeHead(200, {
          'Cache-Control': 'public, max-age=600',
          'CDN-Cache-Control': 'max-age=600',
          'Cloudflare-CDN-Cache-Control': 'max-age=600',
          'Surrogate-Control': 'max-age=600',
          Expires: new Date(Date.now() + 600_000).toUTCString(),
        });
        return void res.end('cacheable');
      }
      if (path === '/two-cookies') {
        res.writeHead(200, { 'Set-Cookie': ['a=1; Path=/', 'b=2; Path=/'], 'X-Robots-Tag': 'all' });
        return void res.end('two');
      }
      if (path === '/big') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(BIG) });
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (big.written < BIG) {
            big.written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          big.done = true;
          res.end();
        };
        return pump();
      }
      const answer = JSON.stringify({
        method: entry.method,
        url: entry.url,
        headers: entry.headers,
        bodySha: createHash('sha256').update(entry.body).digest('hex'),
      });
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Origin': 'yes', Connection: 'X-Hop-Answer', 'X-Hop-Answer': '1' });
      res.end(answer);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    seen,
    held,
    big,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request to a site over the app's real port (node:http, so every header is the test's own). */
function call(
  t: TestApp,
  slug: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer | Buffer[] } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: t.port, method, path, headers: { Host: siteHost(t, slug), ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const parts = options.body === undefined ? [] : Array.isArray(options.body) ? options.body : [options.body];
    for (const part of parts) req.write(part);
    req.end();
  });
}

const json = (a: Answer) => JSON.parse(a.body.toString()) as { method: string; url: string; headers: IncomingHttpHeaders; bodySha: string };

/**
 * Issue 34: `_redirects` proxy rules (`/api/* https://api.example.com/:splat 200`) forward
 * to a real origin server started here, over real HTTP: method, body, headers, streaming
 * with back-pressure, timeouts, the origin down, redirects and cookies from the origin,
 * `Sign=NAME`, the per-site cap, the body limit; and, on an app with the default address
 * policy, rules pointing at loopback refused at request time.
 */
describe('Proxy rules (e2e)', () => {
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let t: TestApp;
  let session: UserSession;
  let token: string;
  let downPort: number;

  const rules = () =>
    [
      `/api/* ${origin.url('/:splat')} 200`,
      `/slow ${origin.url('/slow')} 200`,
      `/hold ${origin.url('/hold')} 200`,
      `/big ${origin.url('/big')} 200`,
      `/down http://127.0.0.1:${downPort}/x 200`,
      `/signed/* ${origin.url('/echo')} 200 Sign=PROXY_SIGNING_SECRET`,
    ].join('\n');
  const projectId = async (slug: string) => ((await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', [slug])) as { id: string }[])[0].id;

  beforeAll(async () => {
    origin = await startOrigin();
    downPort = await freePort();
    t = await startTestApp({
      env: {
        PROXY_ALLOW_PRIVATE_ADDRESSES: 'true',
        PROXY_TIMEOUT_MS: '1500',
        PROXY_MAX_BODY_BYTES: String(MB),
        PROXY_MAX_CONCURRENT_PER_SITE: '2',
      },
    });
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy', 'read'] })).token;
    await deploySite(t, token, 'pxy', [
      { path: 'index.html', content: 'static home' },
      { path: '_redirects', content: rules() },
    ]);
  });
  afterAll(async () => {
    await t?.close();
    await origin?.close();
  });

  it('forwards the method, path, query and body, and answers with the origin’s status, headers and body', async () => {
    const body = randomBytes(300 * 1024);
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await call(
        t,
        'pxy',
        method,
        '/api/echo/deep?q=1&x=%20y',
        // Node's client frames a DELETE body only with a Content-Length.
        method === 'GET' ? {} : { body, headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length) } },
      );
      expect([method, res.status]).toEqual([method, 201]);
      expect(res.headers['x-origin']).toBe('yes');
      const seen = json(res);
      expect(seen.method).toBe(method);
      expect(seen.url).toBe('/echo/deep?q=1&x=%20y');
      if (method !== 'GET') expect(seen.bodySha).toBe(createHash('sha256').update(body).digest('hex'));
    }
    // The site's static files are still its own.
    expect((await call(t, 'pxy', 'GET', '/')).body.toString()).toBe('static home');
  });

  it('sends no hop-by-hop headers, no Authorization, no gate cookie; sets X-Forwarded-For/-Host/-Proto; drops hop-by-hop answer headers', async () => {
    const res = await call(t, 'pxy', 'GET', '/api/echo', {
      headers: {
        Connection: 'X-Hop',
        'X-Hop': 'secret',
        Authorization: 'Bearer the-visitor',
        Cookie: 'statichost_gate=v1.proj.1.9999999999.mac; theme=dark',
        'X-Forwarded-For': '6.6.6.6',
        'X-Kept': 'yes',
      },
    });
    const seen = json(res).headers;
    expect(seen['x-hop']).toBeUndefined();
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBe('theme=dark');
    expect(seen['x-kept']).toBe('yes');
    // TRUST_PROXY is off: a visitor's own X-Forwarded-For is not passed on as a hop.
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-host']).toBe(siteHost(t, 'pxy'));
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen.host).toBe(`127.0.0.1:${origin.port}`);
    expect(res.headers['x-hop-answer']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('on a gated site: the gate answers first; with its cookie, the origin never sees that cookie and the answer is private, no-store', async () => {
    await deploySite(t, token, 'px-gated', [
      { path: 'index.html', content: 'x' },
      { path: '_redirects', content: `/api/* ${origin.url('/:splat')} 200` },
    ]);
    const id = await projectId('px-gated');
    await t.http().patch(`/projects/${id}`).set(asUser(session)).send({ gate_type: 'password', password: 'proxy gate password' }).expect(200);
    const before = origin.seen.length;
    const locked = await call(t, 'px-gated', 'POST', '/api/echo', { body: Buffer.from('x'), headers: { 'Content-Length': '1' } });
    expect(locked.status).not.toBe(201);
    expect(origin.seen.length).toBe(before);
    const form = 'password=proxy+gate+password&next=%2F';
    const login = await call(t, 'px-gated', 'POST', '/.statichost/gate', {
      body: Buffer.from(form),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(form.length) },
    });
    expect(login.status).toBe(303);
    const cookie = String(login.headers['set-cookie']![0]).split(';')[0];
    const res = await call(t, 'px-gated', 'GET', '/api/echo', { headers: { Cookie: `${cookie}; theme=dark` } });
    expect(res.status).toBe(201);
    expect(json(res).headers.cookie).toBe('theme=dark');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers.vary).toMatch(/Cookie/);
    // No CDN may keep an unlocked page by the origin's CDN-specific headers either.
    const cached = await call(t, 'px-gated', 'GET', '/api/cached', { headers: { Cookie: cookie } });
    expect(cached.status).toBe(200);
    expect(cached.headers['cache-control']).toBe('private, no-store');
    for (const name of ['cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control', 'expires'])
      expect([name, cached.headers[name]]).toEqual([name, undefined]);
  });

  it('a Country= proxy rule: the answer is private, and none of the origin’s caching headers lets a CDN hand it to other countries', async () => {
    const geoDir = await mkdtemp(join(tmpdir(), 'statichost-proxy-geoip-'));
    const database = join(geoDir, 'country.mmdb');
    await writeFile(database, writeMmdb([{ network: '203.0.113.0/24', data: countryRecord('FR') }]));
    const geo = await startTestApp({
      sibling: t,
      env: { PROXY_ALLOW_PRIVATE_ADDRESSES: 'true', GEOIP_DATABASE: database, TRUST_PROXY: 'true' },
    });
    try {
      await deploySite(geo, token, 'px-geo', [
        { path: 'index.html', content: 'home' },
        { path: '_redirects', content: `/deal ${origin.url('/cached')} 200! Country=FR\n` },
      ]);
      const res = await call(geo, 'px-geo', 'GET', '/deal', { headers: { 'X-Forwarded-For': '203.0.113.7' } });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('cacheable');
      expect(res.headers['cache-control']).toBe('private, max-age=0, must-revalidate');
      for (const name of ['cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control', 'expires'])
        expect([name, res.headers[name]]).toEqual([name, undefined]);
    } finally {
      await geo.close();
      await rm(geoDir, { recursive: true, force: true });
    }
  });

  it('follows one hop only: a request that already came through a proxy rule of this service answers 508, nothing sent', async () => {
    const before = origin.seen.length;
    const res = await call(t, 'pxy', 'GET', '/api/echo', { headers: { Via: '1.1 statichost-proxy' } });
    expect(res.status).toBe(508);
    expect(origin.seen.length).toBe(before);
    // The mark the service puts on what it sends.
    expect(json(await call(t, 'pxy', 'GET', '/api/echo')).headers.via).toBe('1.1 statichost-proxy');
  });

  it('passes the origin’s redirects on as they are, without following them', async () => {
    const before = origin.seen.length;
    const res = await call(t, 'pxy', 'GET', '/api/redirect');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${origin.port}/elsewhere`);
    expect(origin.seen.slice(before).map((s) => s.url)).toEqual(['/redirect']);
  });

  it('passes Set-Cookie only for the site’s own host; never the gate cookie; drops Clear-Site-Data and proxy directives', async () => {
    const res = await call(t, 'pxy', 'GET', '/api/cookies');
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual(['kept=1; Path=/; HttpOnly', 'own=1; Domain=pxy.localhost']);
    expect(res.headers['clear-site-data']).toBeUndefined();
    expect(res.headers['x-accel-redirect']).toBeUndefined();
  });

  it('on a preview address: every Set-Cookie of the origin beside the preview’s noindex', async () => {
    const res = await call(t, 'pxy--1', 'GET', '/api/two-cookies');
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    // The origin's own X-Robots-Tag joins the preview's; it cannot lift it.
    expect(res.headers['x-robots-tag']).toBe('noindex, all');
  });

  it('streams a 96 MB answer with back-pressure: while the visitor does not read, the origin is held back and the proxy holds no copy; then every byte arrives', async () => {
    origin.big.written = 0;
    origin.big.done = false;
    // The app runs in this process: what the proxy would buffer shows in its Buffers' memory.
    const buffersBefore = process.memoryUsage().arrayBuffers;
    let req: ReturnType<typeof request> | undefined;
    const received = await new Promise<number>((resolve, reject) => {
      req = request({ host: '127.0.0.1', port: t.port, path: '/big', headers: { Host: siteHost(t, 'pxy') } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.pause();
        // Wait until the origin's writes have stopped: the proxy is not reading them for a visitor who is not.
        void (async () => {
          let last = -1;
          await eventually(async () => {
            const now = origin.big.written;
            const still = now === last;
            last = now;
            if (!still) throw new Error('origin still writing');
            await new Promise((r) => setTimeout(r, 300));
            if (origin.big.written !== now) throw new Error('origin still writing');
          }, 20_000);
          // What the origin got out sits in socket buffers, not in the proxy's memory.
          expect(origin.big.done).toBe(false);
          expect(process.memoryUsage().arrayBuffers - buffersBefore).toBeLessThan(16 * MB);
          let total = 0;
          res.on('data', (c: Buffer) => (total += c.length));
          res.on('end', () => resolve(total));
          res.resume();
        })().catch(reject);
      });
      req.on('error', reject);
      req.end();
    }).finally(() => req?.destroy());
    expect(received).toBe(BIG);
    expect(origin.big.done).toBe(true);
  });

  it('answers 504 in the site’s style when the origin does not answer in time, 502 when it is down', async () => {
    const slow = await call(t, 'pxy', 'GET', '/slow');
    expect(slow.status).toBe(504);
    expect(slow.headers['content-type']).toMatch(/^text\/html/);
    expect(slow.body.toString()).toContain('took too long');
    const down = await call(t, 'pxy', 'GET', '/down');
    expect(down.status).toBe(502);
    expect(down.body.toString()).toContain('did not answer');
    expect(down.headers['cache-control']).toBe('no-store');
  });

  it('keeps reading a refused body after its 413 (lingering close), so a client still sending gets the answer, not a reset', async () => {
    // Half-open, as a client still uploading is: a server that closed at once resets its next writes (EPIPE).
    const outcome = await new Promise<{ status?: number; error?: string }>((resolve) => {
      const socket = connect({ port: t.port, host: '127.0.0.1', allowHalfOpen: true });
      let text = '';
      let writer: NodeJS.Timeout | undefined;
      const done = (error?: string) => {
        clearInterval(writer);
        socket.destroy();
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) || undefined, error });
      };
      socket.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
      socket.on('connect', () => {
        socket.write(`POST /api/echo HTTP/1.1\r\nHost: ${siteHost(t, 'pxy')}\r\nContent-Length: ${10 * MB}\r\n\r\n`);
        socket.write(Buffer.alloc(64 * 1024));
      });
      socket.on('data', (chunk: Buffer) => {
        const first = text === '';
        text += chunk.toString('latin1');
        if (!first) return;
        const started = Date.now();
        writer = setInterval(() => {
          if (Date.now() - started > 300) return done();
          socket.write(Buffer.alloc(64 * 1024));
        }, 10);
      });
    });
    expect(outcome).toEqual({ status: 413, error: undefined });
  });

  it('refuses a body over PROXY_MAX_BODY_BYTES with 413: declared, or found while streaming it', async () => {
    const before = origin.seen.length;
    const declared = await call(t, 'pxy', 'POST', '/api/echo', { body: Buffer.alloc(MB + 1), headers: { 'Content-Length': String(MB + 1) } });
    expect(declared.status).toBe(413);
    expect(origin.seen.length).toBe(before);
    const chunked = await call(t, 'pxy', 'POST', '/api/echo', { body: [Buffer.alloc(MB / 2), Buffer.alloc(MB / 2), Buffer.alloc(MB / 2)] });
    expect(chunked.status).toBe(413);
    expect(chunked.body.toString()).toContain('larger than');
    // The origin never saw a whole body.
    expect(origin.seen.slice(before).filter((s) => s.body.length > MB)).toEqual([]);
  });

  it('caps proxied requests per site: past PROXY_MAX_CONCURRENT_PER_SITE a 503 with Retry-After', async () => {
    const first = call(t, 'pxy', 'GET', '/hold');
    const second = call(t, 'pxy', 'GET', '/hold');
    await eventually(async () => {
      if (origin.held.length < 2) throw new Error('not held yet');
    });
    const third = await call(t, 'pxy', 'GET', '/api/echo');
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('1');
    for (const res of origin.held.splice(0)) res.end('released');
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // The slots are given back.
    expect((await call(t, 'pxy', 'GET', '/api/echo')).status).toBe(201);
  });

  it('Sign=NAME: without the variable, 502 and nothing sent; with it, X-Nf-Sign is a JWS of Netlify’s claims under its value', async () => {
    const before = origin.seen.length;
    const missing = await call(t, 'pxy', 'GET', '/signed/a');
    expect(missing.status).toBe(502);
    expect(missing.body.toString()).toContain('signing secret');
    expect(origin.seen.length).toBe(before);
    expect(t.logs.join('')).not.toContain(SIGNING_SECRET);

    // A site with the variable set before its first request.
    await deploySite(t, token, 'px-signed', [
      { path: 'index.html', content: 'x' },
      { path: '_redirects', content: `/signed/* ${origin.url('/echo')} 200 Sign=PROXY_SIGNING_SECRET` },
    ]);
    const id = await projectId('px-signed');
    await t
      .http()
      .put(`/projects/${id}/env/PROXY_SIGNING_SECRET`)
      .set(asUser(session))
      .send({ value: SIGNING_SECRET, targets: ['production'] })
      .expect(200);
    const signed = await call(t, 'px-signed', 'GET', '/signed/a', { headers: { 'X-Nf-Sign': 'forged by the visitor' } });
    expect(signed.status).toBe(201);
    const header = json(signed).headers['x-nf-sign'] as string;
    const { payload } = await jwtVerify(header, new TextEncoder().encode(SIGNING_SECRET), { issuer: 'netlify', algorithms: ['HS256'] });
    expect(payload).toMatchObject({ netlify_id: id, site_url: t.config.siteUrl('px-signed'), context: 'production' });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(t.logs.join('')).not.toContain(SIGNING_SECRET);
  });

  it('Sign=NAME signs with the variable for the host it serves (a preview: its preview value, context deploy-preview), never for a fork’s pull request', async () => {
    const files = (home: string) => [
      { path: 'index.html', content: home },
      { path: '_redirects', content: `/signed/* ${origin.url('/echo')} 200 Sign=PROXY_SIGNING_SECRET` },
    ];
    const first = await deploySite(t, token, 'px-preview', files('one'));
    const id = await projectId('px-preview');
    // For previews only: the production site has no value for it.
    await t
      .http()
      .put(`/projects/${id}/env/PROXY_SIGNING_SECRET`)
      .set(asUser(session))
      .send({ value: SIGNING_SECRET, targets: ['preview'] })
      .expect(200);
    const before = origin.seen.length;
    expect((await call(t, 'px-preview', 'GET', '/signed/a')).status).toBe(502);
    expect(origin.seen.length).toBe(before);
    const preview = await call(t, `px-preview--${first.version}`, 'GET', '/signed/a');
    expect(preview.status).toBe(201);
    const { payload } = await jwtVerify(json(preview).headers['x-nf-sign'] as string, new TextEncoder().encode(SIGNING_SECRET), { issuer: 'netlify' });
    expect(payload).toMatchObject({ netlify_id: id, context: 'deploy-preview' });

    // A deployment a fork's pull request built (its build never saw the variables) does not sign at its preview either.
    const forked = await deploySite(t, token, 'px-preview', files('two'));
    await t.dataSource.query(
      `INSERT INTO builds (id, project_id, workspace_id, status, trigger, ref, pull_request, fork, deployment_id, created_by)
       VALUES ('bld_forkproxytest000000000000', $1, $2, 'ready', 'pull_request', 'refs/pull/7/head', 7, true, $3, $4)`,
      [id, session.workspaceId, forked.id, session.userId],
    );
    const seen = origin.seen.length;
    const refused = await call(t, `px-preview--${forked.version}`, 'GET', '/signed/a');
    expect(refused.status).toBe(502);
    expect(origin.seen.length).toBe(seen);

    // Past the builds a project keeps (a fork can push that many), the sweeper keeps that one.
    await t.dataSource.query(
      `INSERT INTO builds (id, project_id, workspace_id, status, trigger, ref, created_by, created_at)
       SELECT 'bld_newer' || lpad(n::text, 22, '0'), $1, $2, 'canceled', 'pull_request', 'refs/pull/7/head', $3, now() + n * interval '1 second'
       FROM generate_series(1, $4) n`,
      [id, session.workspaceId, session.userId, BUILDS_KEPT_PER_PROJECT + 1],
    );
    await t.app.get(BuildSweeper).runOnce();
    const kept = await t.dataSource.query(`SELECT id FROM builds WHERE project_id = $1 AND (fork OR id = 'bld_newer' || lpad('1', 22, '0'))`, [id]);
    expect(kept.map((r: { id: string }) => r.id)).toEqual(['bld_forkproxytest000000000000']);
    expect((await call(t, `px-preview--${forked.version}`, 'GET', '/signed/b')).status).toBe(502);
    expect(origin.seen.length).toBe(seen);
    expect(t.logs.join('')).not.toContain(SIGNING_SECRET);
  });
});

describe('Proxy rules: the address policy at connect time (e2e)', () => {
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let dns: TestDnsServer;
  let t: TestApp;

  beforeAll(async () => {
    origin = await startOrigin();
    dns = await startDnsServer();
    // A name public DNS could answer either way: here it resolves to loopback when the visitor asks.
    dns.setA('rebind.example.test', '127.0.0.1');
    dns.setA('metadata.example.test', '169.254.169.254');
    t = await startTestApp({ env: { DNS_SERVERS: dns.server } });
    const session = await registerUser(t);
    const token = (await createApiToken(t, session, { scopes: ['deploy'] })).token;
    const p = origin.port;
    await deploySite(t, token, 'px-ssrf', [
      { path: 'index.html', content: 'x' },
      {
        path: '_redirects',
        content: [
          `/localhost http://localhost:${p}/echo 200`,
          `/v6 http://[::1]:${p}/echo 200`,
          `/decimal http://2130706433:${p}/echo 200`,
          `/hex http://0x7f000001:${p}/echo 200`,
          `/literal http://127.0.0.1:${p}/echo 200`,
          `/rebind http://rebind.example.test:${p}/echo 200`,
          `/metadata http://metadata.example.test/latest/meta-data/ 200`,
        ].join('\n'),
      },
    ]);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await origin?.close();
  });

  it.each(['/localhost', '/v6', '/decimal', '/hex', '/literal', '/rebind', '/metadata'])(
    '%s: refused at request time with a 502 page; nothing reaches the origin',
    async (path) => {
      const res = await call(t, 'px-ssrf', 'POST', path, { body: Buffer.from('{"x":1}') });
      expect(res.status).toBe(502);
      expect(res.body.toString()).toContain('may not reach');
      expect(origin.seen).toEqual([]);
    },
  );
});
