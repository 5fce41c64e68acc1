/**
 * One server under test for bench:serve, run as its own process so it can be
 * pinned to a core: `statichost` (the real app with a deployed site, ungated and
 * gated) or `express` (express.static over the same files). Prints one JSON line
 * `{ready, port, ...}` on stdout when it accepts connections.
 */
import 'reflect-metadata';

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';

import express from 'express';

import { BlobVariants } from '../src/blobs/blob-variants.service';
import { api, freePort, startBenchApp } from './harness';

const kind = process.argv[2];
const filesDir = process.argv[3];
const files = JSON.parse(process.env.BENCH_FILES ?? '{}') as Record<string, string>;
/**
 * BENCH_RULE_FILES=1 (bench:serve-compare): the ungated and gated sites also carry a
 * `_headers` whose rules apply to every file and a `_redirects` whose rules match none
 * of them, so every answer pays for both features as a real site's would.
 */
const RULE_FILES =
  process.env.BENCH_RULE_FILES === '1'
    ? [
        {
          path: '_headers',
          content: [
            '/*',
            '  X-Frame-Options: DENY',
            '  Referrer-Policy: strict-origin-when-cross-origin',
            '  Permissions-Policy: camera=(), microphone=()',
            '/assets/*',
            '  Cache-Control: public, max-age=31536000, immutable',
          ].join('\n'),
        },
        { path: '_redirects', content: ['/old /file-2k 301', '/blog/:slug /posts/:slug 302', '/docs/* /manual/:splat 301'].join('\n') },
      ]
    : [];

async function statichost(): Promise<void> {
  // Proxy rules reach the bench's own origin on loopback (issue 34).
  const app = await startBenchApp({ LOG_LEVEL: 'silent', PROXY_ALLOW_PRIVATE_ADDRESSES: 'true' });
  const auth = { Authorization: `Bearer ${app.token}` };
  const list = Object.entries(files).map(([path, content]) => ({ path, content }));
  await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench', files: [...list, ...RULE_FILES] }, auth);
  await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench-gated', files: [...list, ...RULE_FILES] }, auth);
  // Issue 12: the same files beside the most rules a _redirects may hold, none matching them.
  await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench-rules', files: [...list, { path: '_redirects', content: benchRedirects() }] }, auth);
  // Issue 34: the same files beside proxy rules (to bench/proxy-origin.ts) and rules with conditions, none matching the files.
  const proxyOrigin = process.env.BENCH_PROXY_ORIGIN;
  let proxyRules = 'none';
  if (proxyOrigin) {
    const proxies = [`/api/* ${proxyOrigin}/:splat 200`, `/signed/* ${proxyOrigin}/:splat 200`, `/legacy/api/* ${proxyOrigin}/v1/:splat 200!`];
    const conditions = ['/shop/* /fr/shop/:splat 302 Language=fr', '/store/* /eu/store/:splat 302 Country=de,fr', '/donate source=:source /donate/:source 302'];
    try {
      await api(
        app.baseUrl,
        'POST',
        '/v1/deployments',
        { project_slug: 'bench-proxy', files: [...list, { path: '_redirects', content: [...proxies, ...conditions].join('\n') }] },
        auth,
      );
      proxyRules = 'proxy and condition rules';
    } catch {
      // Conditions are not parsed before the rules branch of issue 34 lands: measure the proxy rules alone then.
      await api(
        app.baseUrl,
        'POST',
        '/v1/deployments',
        { project_slug: 'bench-proxy', files: [...list, { path: '_redirects', content: proxies.join('\n') }] },
        auth,
      );
      proxyRules = 'proxy rules only (conditions refused by this build)';
    }
  }
  const gated = await api(app.baseUrl, 'GET', '/projects?limit=100', undefined, auth);
  const id = (gated.data as { id: string; slug: string }[]).find((p) => p.slug === 'bench-gated')!.id;
  await api(app.baseUrl, 'PATCH', `/projects/${id}`, { gate_type: 'password', password: 'bench gate password' }, auth);
  // fetch() cannot set Host; node:http can.
  const login = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const body = 'password=bench+gate+password&next=%2F';
    const req = request(
      {
        host: '127.0.0.1',
        port: app.port,
        path: '/.statichost/gate',
        method: 'POST',
        headers: { Host: `bench-gated.localhost:${app.port}`, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': body.length },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, cookie: String(res.headers['set-cookie']?.[0] ?? '').split(';')[0] });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  const cookie = login.cookie;
  if (login.status !== 303 || !cookie) throw new Error(`gate login failed: ${login.status}`);
  // A real build nobody here wrote, for the bytes-on-the-wire comparison (issue 12).
  const swagger = process.env.BENCH_SWAGGER_DIR;
  if (swagger) {
    const names = (await readdir(swagger)).filter((n) => !n.startsWith('.'));
    const swaggerFiles = await Promise.all(
      names.map(async (n) => ({ path: n, content: (await readFile(join(swagger, n))).toString('base64'), encoding: 'base64' })),
    );
    await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench-swagger', files: swaggerFiles }, auth);
  }
  // Measure compressed answers only once every Brotli and gzip copy exists.
  await app.app.get(BlobVariants).idle();
  process.stdout.write(`${JSON.stringify({ ready: true, port: app.port, cookie, proxyRules })}\n`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * 2,000 static and 100 dynamic rules (the limits). Half the dynamic rules start
 * with a placeholder, so no prefix check spares their regular expression.
 */
function benchRedirects(): string {
  const lines = Array.from({ length: 2000 }, (_, i) => `/old/page-${i} /new/page-${i} 301`);
  for (let i = 0; i < 50; i++) lines.push(`/section-${i}/:slug /new/section-${i}/:slug 302`);
  for (let i = 0; i < 50; i++) lines.push(`/:lang/archive-${i}/* /archive/:lang/${i}/:splat 301`);
  return lines.join('\n');
}

async function expressStatic(): Promise<void> {
  await mkdir(filesDir, { recursive: true });
  for (const [path, content] of Object.entries(files)) await writeFile(join(filesDir, path), content);
  const app = express();
  app.use(express.static(filesDir));
  const port = await freePort();
  const server = app.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

(kind === 'statichost' ? statichost() : expressStatic()).catch((err) => {
  console.error(err);
  process.exit(1);
});
