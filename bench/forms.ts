/**
 * `npm run bench:forms`: a form post's latency on a hosted site (issue 30) — 20 concurrent
 * submitters, each a visitor of its own (its own user agent, so the per-visitor rate limit
 * is the real one, set high enough not to refuse), posting urlencoded submissions through
 * the real HTTP server: body read, limits, rate-limit counter in PostgreSQL, sealing,
 * counters, insert. Target: p99 <= 50 ms.
 *
 * GETs are untouched by forms: `npm run bench:serve` (or `bench:serve-compare` against the
 * main branch) measures them; forms add one `live.forms.length` check on non-GET requests
 * only, and a deployment's forms are read with its manifest (once per deployment).
 *
 * Environment: FORMS_BENCH_REQUESTS (default 2000), FORMS_BENCH_CONCURRENCY (default 20).
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import { api, ms, startBenchApp } from './harness';

const REQUESTS = Number(process.env.FORMS_BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.FORMS_BENCH_CONCURRENCY ?? 20);
const WARMUP = 200;
const TARGET_P99_MS = 50;

const PAGE = `<!doctype html><form data-statichost-form="contact" data-statichost-honeypot="company" method="post" action="/thanks/">
<input type="hidden" name="form-name" value="contact"><input name="company"><input name="name"><input name="email"><textarea name="message"></textarea></form>`;

function post(port: number, host: string, agent: Agent, visitor: number, i: number): Promise<number> {
  const body = new URLSearchParams({
    'form-name': 'contact',
    company: '',
    name: `Visitor ${visitor}`,
    email: `visitor${visitor}.${i}@example.com`,
    message: `Hello, this is message ${i} from visitor ${visitor}. `.repeat(4),
  }).toString();
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        agent,
        headers: {
          Host: host,
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': `bench-visitor-${visitor}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 303) reject(new Error(`submission answered ${res.statusCode}`));
          else resolve(performance.now() - start);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function run(port: number, host: string, total: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, visitor) => {
      while (next < total) times.push(await post(port, host, agent, visitor, next++));
    }),
  );
  agent.destroy();
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const app = await startBenchApp({ FORMS_RATE_LIMIT_MAX: '1000000', ANALYTICS_ENABLED: 'true' });
  try {
    await api(
      app.baseUrl,
      'POST',
      '/v1/deployments',
      {
        project_slug: 'bench-forms',
        files: [
          { path: 'index.html', content: PAGE },
          { path: 'thanks/index.html', content: 'thanks' },
        ],
      },
      { Authorization: `Bearer ${app.token}` },
    );
    const host = `bench-forms.${app.config.SITES_DOMAIN}`;
    await run(app.port, host, WARMUP);
    const start = performance.now();
    const times = await run(app.port, host, REQUESTS);
    const elapsed = performance.now() - start;
    const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
    console.log(`\nbench:forms — ${REQUESTS} urlencoded submissions, ${CONCURRENCY} concurrent submitters (keep-alive), after ${WARMUP} warm-up`);
    console.table({
      p50: ms(pct(50)),
      p95: ms(pct(95)),
      p99: ms(pct(99)),
      max: ms(times[times.length - 1]),
      'per second': (REQUESTS / (elapsed / 1000)).toFixed(0),
    });
    console.log(`p99 ${ms(pct(99))}   target <= ${TARGET_P99_MS} ms   ${pct(99) <= TARGET_P99_MS ? 'MET' : 'MISSED'}`);
  } finally {
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
