/**
 * `npm run bench:forms`: a form post's latency on a hosted site (issue 30) — 20 concurrent
 * submitters (wrk, 20 keep-alive connections, in its own process), each post a visitor of
 * one of 20 (its own user agent, so the per-visitor rate limit is the real one, set high
 * enough not to refuse), urlencoded submissions through the real HTTP server: body read,
 * limits, rate-limit counter in PostgreSQL, sealing, counters, insert. Target: p99 <= 50 ms.
 * Prints the app's and PostgreSQL's CPU time per post beside it (the machine's cores are
 * what 20 submitters queue for).
 *
 * The load comes from wrk, not from this process: a client in the app's own event loop
 * adds its work to every answer's latency (an earlier version of this bench did).
 *
 * GETs are untouched by forms: `npm run bench:serve` (or `bench:serve-compare` against the
 * main branch) measures them; forms add one `live.forms.length` check on non-GET requests
 * only, and a deployment's forms are read with its manifest (once per deployment).
 *
 * Needs wrk (`apt-get install -y wrk`). Environment: BENCH_SECONDS (default 10),
 * FORMS_BENCH_CONCURRENCY (default 20), BENCH_CPU_PROF=<dir> (a CPU profile of the app during
 * the measured run, written there as forms-<time>.cpuprofile).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { api, cpuMs, have, postgresCpuMs, profileOnSignal, runWrk, startBenchApp } from './harness';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.FORMS_BENCH_CONCURRENCY ?? 20);
const TARGET_P99_MS = 50;

const PAGE = `<!doctype html><form data-statichost-form="contact" data-statichost-honeypot="company" method="post" action="/thanks/">
<input type="hidden" name="form-name" value="contact"><input name="company"><input name="name"><input name="email"><textarea name="message"></textarea></form>`;

/** Each post a new submission from one of the submitters, as the earlier bench's bodies were. */
function postScript(host: string): string {
  return `local n = 0
request = function()
  n = n + 1
  local v = n % ${CONCURRENCY}
  local body = "form-name=contact&company=&name=Visitor+" .. v .. "&email=visitor" .. v .. "." .. n .. "%40example.com&message=" ..
    string.rep("Hello%2C+this+is+message+" .. n .. "+from+visitor+" .. v .. ".+", 4)
  return wrk.format("POST", "/", {
    ["Host"] = "${host}",
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["User-Agent"] = "bench-visitor-" .. v,
    ["X-Forwarded-For"] = "198.51.100." .. v,
  }, body)
end
`;
}

async function main(): Promise<void> {
  if (!have('wrk')) throw new Error('wrk is required: apt-get install -y wrk');
  // Each submitter its own address (X-Forwarded-For, one trusted hop), as twenty visitors have:
  // posts from one address share its rate counter's row and wait for each other on it.
  const app = await startBenchApp({ FORMS_RATE_LIMIT_MAX: '1000000', FORMS_RATE_LIMIT_ADDRESS_MAX: '1000000', ANALYTICS_ENABLED: 'true', TRUST_PROXY: '1' });
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
    const script = join(app.dataDir, 'post.lua');
    await writeFile(script, postScript(host));
    const pgDir = process.env.DATABASE_URL ? undefined : join(app.dataDir, 'postgres');
    const url = `http://127.0.0.1:${app.port}/`;
    await runWrk({ url, seconds: 2, connections: CONCURRENCY, script });
    const profDir = process.env.BENCH_CPU_PROF;
    if (profDir) {
      await profileOnSignal(profDir, 'forms');
      process.emit('SIGUSR2');
    }
    const appCpu = cpuMs(process.pid);
    const pgCpu = pgDir ? postgresCpuMs(pgDir) : NaN;
    const r = await runWrk({ url, seconds: SECONDS, connections: CONCURRENCY, script });
    if (profDir) process.emit('SIGUSR1');
    const perPost = (used: number) => (r.requests > 0 ? `${((used * 1000) / r.requests).toFixed(0)} µs` : 'n/a');
    console.log(`\nbench:forms — urlencoded submissions for ${SECONDS} s, ${CONCURRENCY} concurrent submitters (wrk, keep-alive), after a 2-s warm-up`);
    console.table({
      p50: `${r.p50Ms.toFixed(1)} ms`,
      p99: `${r.p99Ms.toFixed(1)} ms`,
      'per second': r.reqPerSec.toFixed(0),
      'not 303, or failed': r.non2xx + r.errors,
      'app CPU per post': perPost(cpuMs(process.pid) - appCpu),
      'PostgreSQL CPU per post': pgDir ? perPost(postgresCpuMs(pgDir) - pgCpu) : 'n/a (DATABASE_URL)',
    });
    const ok = r.p99Ms <= TARGET_P99_MS && r.non2xx + r.errors === 0;
    console.log(`p99 ${r.p99Ms.toFixed(1)} ms   target <= ${TARGET_P99_MS} ms, every post answered 303   ${ok ? 'MET' : 'MISSED'}`);
  } finally {
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
