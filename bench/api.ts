/**
 * npm run bench:api — what the API's own work costs over its framework: each route on
 * the real app (seeded with a few hundred projects and deployments) beside a bare
 * NestJS app on the same adapter (platform-express) answering the same path with the
 * same JSON. Each app runs in its own process pinned to core 0 (bench/api-target.ts),
 * wrk on core 1, 50 connections, loopback only. PostgreSQL (embedded, started here,
 * unless DATABASE_URL is set) is pinned to wrk's core: it is the database, not the app,
 * and on a 2-core machine an unpinned server takes its share of the app's core (in
 * production it has its own machine). Its cost is shown apart, in PG CPU µs/req.
 *
 * Targets (issue 15): authenticated reads >= 0.5x the bare app's req/s, p99 <= 50 ms.
 *
 * Each route is measured in BENCH_ROUNDS rounds (default 3), the bare app then the app in
 * each, and judged by the medians: one 10-second p99 on this kind of machine moves by
 * ±10 ms from run to run, the bare app's as much as the app's (a garbage collection or a
 * scheduling hiccup more or less), so the range of every round is printed beside it.
 *
 * Beside req/s it prints the CPU time each answer cost the app, its PostgreSQL and the
 * bare app (from /proc): unlike req/s, those hardly move when the machine is busy.
 *
 * BENCH_SECONDS (default 10) per measurement; SEED_PROJECTS / SEED_DEPLOYMENTS (300 each);
 * BENCH_ONLY=<substring> to run some routes; BENCH_CPU_PROF=<dir> writes there a CPU
 * profile of each app (`statichost-…`, `bare-…`) during each measured run, BENCH_HEAP_PROF=<dir>
 * a sampling heap profile (what allocates: the young-generation GC is a large share of the
 * app's CPU), BENCH_PAUSES=1 each app's event-loop delay and GC pauses during each measured run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { cpuMs, freePort, have, pinPostgres, postgresCpuMs, runWrk, startPinnedTarget, transactionsSoFar, type WrkResult } from './harness';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 50;
const PROFILE = !!(process.env.BENCH_CPU_PROF || process.env.BENCH_HEAP_PROF || process.env.BENCH_PAUSES);
const APP_CORE = 0;
const WRK_CORE = 1;

function startTarget(kind: 'statichost' | 'bare', env: Record<string, string> = {}) {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean);
  return startPinnedTarget(join(__dirname, 'api-target.ts'), [kind], { core: APP_CORE, env, nodeArgs, startSeconds: 300 });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** CPU time per answered request, in µs: the app's process, its PostgreSQL server, the bare app's process. */
interface Cpu {
  app: number;
  pg: number;
  bare: number;
  /** PostgreSQL transactions per answered request (each statement outside a transaction is one): queries per request. */
  queries: number;
}

interface Route {
  name: string;
  /** The key of the bare app's body (see api-target.ts). */
  body: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  json?: unknown;
  /** A wrk Lua `request` function body: the path of each request varies (the bare app answers its one body). */
  rotate?: string;
  /** Counted against the >= 0.5x target. */
  authenticatedRead: boolean;
}

async function main(): Promise<void> {
  for (const cmd of ['wrk', 'taskset']) if (!have(cmd)) throw new Error(`${cmd} is required: apt-get install -y wrk util-linux`);
  const root = await mkdtemp(join(tmpdir(), 'statichost-bench-api-'));
  const children: ChildProcess[] = [];
  const results: { route: Route; bare: WrkResult[]; app: WrkResult[]; cpu: Cpu }[] = [];
  let pgDataDir: string | undefined;
  let stopPg: (() => Promise<void>) | undefined;
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      // Its own directory: the cluster's system user must be able to reach it (see embedded-postgres.ts).
      const pgDir = await mkdtemp(join(tmpdir(), 'statichost-bench-api-pg-'));
      pgDataDir = join(pgDir, 'postgres');
      const pg = await startEmbeddedPostgres({ dataDir: pgDir, port: await freePort() });
      pinPostgres(pgDataDir, WRK_CORE);
      databaseUrl = pg.url;
      stopPg = () => pg.stop().then(() => rm(pgDir, { recursive: true, force: true }));
    }
    const started = Date.now();
    const app = await startTarget('statichost', { DATABASE_URL: databaseUrl });
    children.push(app.child);
    const { port, token, jwt, workspaceId, projectId, projects } = app.info as Record<string, string>;
    console.error(
      `seeded ${projects} projects, ${process.env.SEED_DEPLOYMENTS ?? 300} deployments of one of them, in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    const tokenAuth = { Authorization: `Bearer ${token}` };
    const jwtAuth = { Authorization: `Bearer ${jwt}`, 'X-Workspace-Id': workspaceId };
    const routes: Route[] = [
      { name: 'GET /v1/me (API token)', body: 'me', method: 'GET', path: '/v1/me', headers: tokenAuth, authenticatedRead: true },
      { name: 'GET /workspaces (JWT)', body: 'workspaces', method: 'GET', path: '/workspaces', headers: jwtAuth, authenticatedRead: true },
      { name: 'GET /projects (JWT)', body: 'projects', method: 'GET', path: '/projects', headers: jwtAuth, authenticatedRead: true },
      {
        name: 'GET /projects/:id/deployments (JWT)',
        body: 'deployments',
        method: 'GET',
        path: `/projects/${projectId}/deployments`,
        headers: jwtAuth,
        authenticatedRead: true,
      },
      {
        // No two of the 50 requests in flight ask the same page: what a list costs when
        // identical concurrent reads cannot share one query (common/fresh-read.ts).
        name: 'GET /projects, 75 pages in rotation (JWT)',
        body: 'projects',
        method: 'GET',
        path: '/projects',
        headers: jwtAuth,
        rotate: 'n = (n or 0) + 1; return wrk.format(nil, "/projects?page=" .. (n % 15 + 1) .. "&limit=" .. (18 + math.floor(n / 15) % 5))',
        authenticatedRead: true,
      },
      {
        name: 'POST /v1/deployments (API token)',
        body: 'deploy',
        method: 'POST',
        path: '/v1/deployments',
        headers: { ...tokenAuth, 'Content-Type': 'application/json' },
        json: { project_slug: 'bench-post', files: [{ path: 'index.html', content: '<p>posted</p>' }] },
        authenticatedRead: false,
      },
    ].filter((r) => !process.env.BENCH_ONLY || r.name.includes(process.env.BENCH_ONLY)) as Route[];

    // The bare app answers with exactly what the real one does.
    const bodies: Record<string, unknown> = {};
    for (const r of routes.filter((route) => !route.rotate)) {
      const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
        method: r.method,
        headers: r.headers,
        body: r.json === undefined ? undefined : JSON.stringify(r.json),
      });
      if (!res.ok) throw new Error(`${r.name} → ${res.status}: ${await res.text()}`);
      bodies[r.body] = await res.json();
    }
    const bare = await startTarget('bare', { BENCH_BODIES: JSON.stringify(bodies) });
    children.push(bare.child);

    for (const r of routes) {
      let script: string | undefined;
      if (r.method === 'POST') {
        script = join(root, `${r.body}.lua`);
        await writeFile(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(JSON.stringify(r.json))}\n`);
      }
      if (r.rotate) {
        script = join(root, `${r.body}-rotate.lua`);
        await writeFile(script, `request = function()\n  ${r.rotate}\nend\n`);
      }
      const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`);
      const run = (p: number, seconds: number) =>
        runWrk({ url: `http://127.0.0.1:${p}${r.path}`, seconds, connections: CONNECTIONS, headers, script, core: WRK_CORE });
      // Warm both (JIT, pools, caches) so neither measured run is the cold one.
      await run(bare.info.port as number, WARMUP);
      await run(Number(port), WARMUP);
      const b: WrkResult[] = [];
      const a: WrkResult[] = [];
      const used = { bare: 0, app: 0, pg: 0, queries: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const bareCpu = cpuMs(bare.child.pid!);
        if (PROFILE) bare.child.kill('SIGUSR2');
        b.push(await run(bare.info.port as number, DURATION));
        if (PROFILE) bare.child.kill('SIGUSR1');
        used.bare += cpuMs(bare.child.pid!) - bareCpu;
        const xacts0 = await transactionsSoFar(databaseUrl);
        const appCpu = cpuMs(app.child.pid!);
        const pgCpu = pgDataDir ? postgresCpuMs(pgDataDir) : NaN;
        if (PROFILE) app.child.kill('SIGUSR2');
        a.push(await run(Number(port), DURATION));
        if (PROFILE) app.child.kill('SIGUSR1');
        used.app += cpuMs(app.child.pid!) - appCpu;
        used.pg += pgDataDir ? postgresCpuMs(pgDataDir) - pgCpu : NaN;
        // The count's own query is a transaction too.
        used.queries += (await transactionsSoFar(databaseUrl)) - xacts0 - 1;
      }
      const answered = (runs: WrkResult[]) => runs.reduce((sum, run) => sum + run.requests, 0);
      const cpu: Cpu = {
        bare: (used.bare * 1000) / answered(b),
        app: (used.app * 1000) / answered(a),
        pg: (used.pg * 1000) / answered(a),
        queries: used.queries / answered(a),
      };
      const non2xx = (runs: WrkResult[]) => runs.reduce((sum, run) => sum + run.non2xx, 0);
      if (non2xx(a) || non2xx(b)) throw new Error(`${r.name}: ${non2xx(a)} non-2xx answers from the app, ${non2xx(b)} from the bare app`);
      results.push({ route: r, bare: b, app: a, cpu });
      console.error(`${r.name}: ${a.map((run) => Math.round(run.reqPerSec)).join(', ')} req/s (bare ${b.map((run) => Math.round(run.reqPerSec)).join(', ')})`);
    }
  } finally {
    await Promise.all(children.map(stop));
    await stopPg?.();
    await rm(root, { recursive: true, force: true });
  }

  console.log(
    `\nbench:api — ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds each (medians; p99 range over the rounds), app on core ${APP_CORE}, wrk on core ${WRK_CORE}`,
  );
  const ms = (runs: WrkResult[], pick: (run: WrkResult) => number) => median(runs.map(pick)).toFixed(1);
  const range = (runs: WrkResult[]) => `${Math.min(...runs.map((run) => run.p99Ms)).toFixed(0)}–${Math.max(...runs.map((run) => run.p99Ms)).toFixed(0)}`;
  console.table(
    Object.fromEntries(
      results.map(({ route, bare, app, cpu }) => [
        route.name,
        {
          'req/s': Math.round(median(app.map((run) => run.reqPerSec))),
          'p50 (ms)': ms(app, (run) => run.p50Ms),
          'p99 (ms)': ms(app, (run) => run.p99Ms),
          'p99 range': range(app),
          'bare req/s': Math.round(median(bare.map((run) => run.reqPerSec))),
          'bare p99 (ms)': ms(bare, (run) => run.p99Ms),
          'bare p99 range': range(bare),
          'x bare': ratio(app, bare).toFixed(2),
          'app CPU µs/req': Math.round(cpu.app),
          'PG CPU µs/req': Math.round(cpu.pg),
          'PG queries/req': cpu.queries.toFixed(2),
          'bare CPU µs/req': Math.round(cpu.bare),
        },
      ]),
    ),
  );
  for (const { route, bare, app } of results.filter((r) => r.route.authenticatedRead)) {
    const x = ratio(app, bare);
    const p99 = median(app.map((run) => run.p99Ms));
    const under = app.filter((run) => run.p99Ms <= 50).length;
    const met = x >= 0.5 && p99 <= 50;
    console.log(
      `${route.name}: ${x.toFixed(2)}x bare (target >= 0.5x), p99 ${p99.toFixed(1)} ms (target <= 50 ms; ${under} of ${app.length} rounds under it) ${met ? 'MET' : 'MISSED'}`,
    );
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The app's req/s against the bare app's, the median of the rounds' ratios (each round measures both, one after the other). */
function ratio(app: WrkResult[], bare: WrkResult[]): number {
  return median(app.map((run, i) => run.reqPerSec / bare[i].reqPerSec));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
