/**
 * npm run bench:sites — how the site router holds up as the number of live sites grows
 * (issue 35). For each N (BENCH_SITES, default 1000,10000,100000) in one run:
 *
 * - N live sites are seeded straight into PostgreSQL (bench/sites-seed.ts: copies of one
 *   template site deployed through the API, each a 1.5 KB `index.html` sharing one blob);
 * - the app is started afresh (bench/sites-target.ts, pinned to core 0 with taskset; cold
 *   caches), wrk runs on core 1 (one thread, 50 connections, a Lua script choosing the
 *   Host of each request), and the embedded PostgreSQL is pinned to core 1 too, so the
 *   app's core is the app's alone;
 * - one host: every request to `sb-0` (the same script, choosing among one host), after a
 *   2 s warm-up of the JIT on it;
 * - all hosts, first pass (cold): every site asked exactly once, in a scattered order
 *   (`passStride`), wrk stopped after N answers (SIGINT from its Lua script): req/s and
 *   p99 of cache misses;
 * - all hosts, second pass (warm), once PostgreSQL has written what the cold pass counted
 *   (one analytics flush interval, then waitForQuietDatabase): a random site per request for BENCH_SECONDS: req/s,
 *   p99, the ratio to one host, and PostgreSQL transactions per request (0 when every
 *   site stayed cached);
 * - interleaved: one host and all hosts in alternation on the warm app, PAIRS pairs of
 *   PAIR_SECONDS segments: the median pair's all/one ratio, a second reading of the warm
 *   ratio that this VM's drift between the one-host and warm passes does not move;
 * - after a restart (issue 35's warm start): the app is stopped, which writes the hosts it
 *   served last to `site_warm_list` (SITE_WARM_START_HOSTS of them: BENCH_WARM_START_HOSTS,
 *   default every site), and started again; once it has loaded that list (how many, how
 *   long), the same JIT warm-up on one host and wait for a quiet database as before the cold
 *   pass, then the first pass again: req/s, p50 and p99 of a restart's first visitors;
 * - app RSS (VmRSS) after one host and after the warm pass, and the app's CPU time over each
 *   pass's wall time ("app busy": below 100 % the app waited for wrk, whose core it shares
 *   with PostgreSQL);
 *
 * Goals (issue 35): warm >= 0.9x one host at 10,000 sites, >= 0.7x at 100,000 (default
 * budget); cold p99 <= 20 ms at 10,000; RSS <= SITE_CACHE_MB + BENCH_RSS_OVERHEAD_MB
 * (default 320 MB: the app's own footprint, see docs/scaling.md) — when the build has a
 * SITE_CACHE_MB (set it in the environment to run with another budget than the default).
 * One-host throughput against another commit: `BENCH_BASELINE=<commit> npm run
 * bench:serve-compare` (the same router path on one host, alternated rounds; goal >= 0.97x).
 *
 * Needs wrk and taskset (`apt-get install -y wrk util-linux`). Environment: BENCH_SITES,
 * BENCH_SECONDS (10), BENCH_ROUNDS (1: rounds per N on a fresh app each, medians reported), BENCH_WARM_START_HOSTS (N), BENCH_COLD_LIMIT_SECONDS (300: a cold pass slower than that stops
 * short and says so), BENCH_RSS_OVERHEAD_MB (320), SITE_CACHE_MB (passed to the app),
 * DATABASE_URL (an existing database instead of an embedded one; it gets N sites written into it),
 * BENCH_CPU_PROF / BENCH_HEAP_SNAPSHOT (a directory: profiles or heap snapshots of the app's one-host, cold and warm passes),
 * BENCH_USER_AGENT (none by default, as wrk sends: every answer counts as a bot's; a browser's,
 * e.g. `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36`, makes each site's first
 * page view a visitor, hashed and counted as a real browser's would be).
 */
import { type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { cpuMs, freePort, have, pinPostgres, runWrk, startPinnedTarget, transactionsSoFar, waitForQuietDatabase, type WrkResult } from './harness';
import { passStride, seededSlug, seedSites } from './sites-seed';

/** Sent with every request when set: a browser's makes the answers page views of visitors, not of a bot (analytics). */
const USER_AGENT = process.env.BENCH_USER_AGENT ?? '';

const SIZES = (process.env.BENCH_SITES ?? '1000,10000,100000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const COLD_LIMIT_SECONDS = Number(process.env.BENCH_COLD_LIMIT_SECONDS ?? 300);
const RSS_OVERHEAD_MB = Number(process.env.BENCH_RSS_OVERHEAD_MB ?? 320);
/**
 * Rounds per N, each on a fresh app (one host, cold, warm): this VM's speed drifts by tens of
 * per cent within a minute, so one round's ratio is a rough figure. Each figure is the median
 * of its rounds; the warm ratio is the median of the rounds' own ratios.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/**
 * The warm ratio measured a second way: one host and all hosts in alternation, PAIRS pairs of
 * PAIR_SECONDS each, on the warm app. The one-host pass (before the cold pass) and the warm
 * pass (after it) are half a minute apart, and on this VM the speed moves by tens of per cent
 * in that time; two adjacent segments share the machine's state, so their ratio is the app's.
 */
const PAIRS = 5;
const PAIR_SECONDS = 2;
/** SITE_WARM_START_HOSTS of every start: BENCH_WARM_START_HOSTS, else N (the list holds every site; the app's default is 1,000). */
const WARM_START_HOSTS = process.env.BENCH_WARM_START_HOSTS === undefined ? undefined : Number(process.env.BENCH_WARM_START_HOSTS);
/**
 * BENCH_CPU_PROF=<dir>: CPU profiles of one host, the cold pass and the warm pass; BENCH_HEAP_SNAPSHOT=<dir>: heap
 * snapshots after each (bench/sites-target.ts). A diagnostic mode: writing a snapshot raises the RSS the bench reads after it.
 */
const PROFILE = !!(process.env.BENCH_CPU_PROF || process.env.BENCH_HEAP_SNAPSHOT);
const CONNECTIONS = 50;
/** How long after the last answer of a pass wrk is told to stop (see luaScript); taken off its runtime. */
const STOP_DELAY_MS = 10;
/** The app's ANALYTICS_FLUSH_SECONDS (its default), and a little more. */
const FLUSH_INTERVAL_MS = 10_500;
const APP_CORE = 0;
const WRK_CORE = 1;

interface WarmStart {
  listed: number;
  sites: number;
  failed: number;
  ms: number;
}

interface Round {
  oneHost: WrkResult;
  cold: WrkResult;
  warm: WrkResult;
  /** The first pass again, on a restarted app once its warm start has ended. */
  restart: WrkResult;
  warmStart: WarmStart;
  warmQueriesPerRequest: number;
  /** All hosts over one host, per interleaved pair (see PAIRS). */
  pairs: number[];
  /**
   * The app's CPU time over each pass's wall time (one host, cold, warm). Below 1 the app
   * waited for requests: wrk shares its core with PostgreSQL, so a database busy with
   * something else (an analytics flush) slows the load, not the app.
   */
  busy: { oneHost: number; cold: number; warm: number };
  rssOneHostMb: number;
  rssWarmMb: number;
  siteCacheMb: number | null;
}

/** One N's rounds, and their medians (the warm ratio: the median of the rounds' ratios). */
interface Row extends Round {
  sites: number;
  seedMs: number;
  ratio: number;
  /** The median of the rounds' medians of their interleaved pairs. */
  interleaved: number;
  /** One host's app CPU per request over the warm pass's: the throughput ratio of an app bound by its core alone. */
  cpuRatio: number;
  rounds: Round[];
}

/**
 * The app's CPU time per answer in a pass, in µs. When the app waited for wrk in a pass
 * (busy below 100 %), the ratio of these is what the app's own work gives; it moves with
 * this VM's speed as much as req/s does.
 */
function cpuPerRequest(pass: WrkResult, busy: number): number {
  return (busy * 1e6) / pass.reqPerSec;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The round whose value of `of` is the median (the lower middle one of an even count). */
function medianRound(rounds: Round[], of: (r: Round) => number): Round {
  return [...rounds].sort((a, b) => of(a) - of(b))[(rounds.length - 1) >> 1];
}

function summary(sites: number, seedMs: number, rounds: Round[]): Row {
  const last = rounds[rounds.length - 1];
  // The round of the median restart p99, with the warm start that preceded it.
  const restarted = medianRound(rounds, (r) => r.restart.p99Ms);
  return {
    sites,
    seedMs,
    rounds,
    oneHost: medianRound(rounds, (r) => r.oneHost.reqPerSec).oneHost,
    cold: medianRound(rounds, (r) => r.cold.p99Ms).cold,
    warm: medianRound(rounds, (r) => r.warm.reqPerSec).warm,
    restart: restarted.restart,
    warmStart: restarted.warmStart,
    ratio: median(rounds.map((r) => r.warm.reqPerSec / r.oneHost.reqPerSec)),
    interleaved: median(rounds.map((r) => median(r.pairs))),
    pairs: rounds.flatMap((r) => r.pairs),
    cpuRatio: median(rounds.map((r) => cpuPerRequest(r.oneHost, r.busy.oneHost) / cpuPerRequest(r.warm, r.busy.warm))),
    warmQueriesPerRequest: median(rounds.map((r) => r.warmQueriesPerRequest)),
    busy: {
      oneHost: median(rounds.map((r) => r.busy.oneHost)),
      cold: median(rounds.map((r) => r.busy.cold)),
      warm: median(rounds.map((r) => r.busy.warm)),
    },
    rssOneHostMb: median(rounds.map((r) => r.rssOneHostMb)),
    // The largest: the goal bounds it.
    rssWarmMb: Math.max(...rounds.map((r) => r.rssWarmMb)),
    siteCacheMb: last.siteCacheMb,
  };
}

/** Resident memory of a process, in MB (VmRSS from /proc). */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/**
 * wrk Lua: `random` picks a site per request among `n`; `pass` asks each of the `n` sites
 * once in a scattered order and stops after `n` answers (wrk has no request count of its own).
 */
function luaScript(kind: 'random' | 'pass', n: number, port: number): string {
  const host = `"${seededSlug(0).replace(/0$/, '')}" .. i .. ".localhost:${port}"`;
  // A JSON string is a Lua string literal for what a User-Agent holds (printable ASCII).
  const headers = `{ Host = ${host}${USER_AGENT ? `, ["User-Agent"] = ${JSON.stringify(USER_AGENT)}` : ''} }`;
  if (kind === 'random')
    return `local n = ${n}
request = function()
  local i = math.random(0, n - 1)
  return wrk.format(nil, "/", ${headers})
end
`;
  return `local n, stride = ${n}, ${passStride(n)}
local k, answered = 0, 0
request = function()
  local i = (k * stride + 13) % n
  k = k + 1
  return wrk.format(nil, "/", ${headers})
end
response = function()
  answered = answered + 1
  if answered == n then
    wrk.thread:stop()
    -- wrk's main thread sleeps out -d whatever its threads do; SIGINT ends the run (and its
    -- clock) now. From a background shell: system() ignores SIGINT in wrk until it returns.
    os.execute("(sleep ${STOP_DELAY_MS / 1000}; kill -INT $PPID) &")
  end
end
`;
}

async function stopTarget(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  await exited;
}

/** A pass's rate over its own answers (wrk is told to stop STOP_DELAY_MS after the last). */
function passRate(pass: WrkResult): WrkResult {
  return { ...pass, reqPerSec: pass.requests / ((pass.runtimeMs - STOP_DELAY_MS) / 1000) };
}

/** A wrong answer stops the run; socket errors (timeouts on a starved machine) are counted and printed. */
function checked(what: string, r: WrkResult): WrkResult {
  if (r.non2xx > 0) throw new Error(`${what}: ${r.non2xx} non-2xx answers of ${r.requests} requests`);
  return r;
}

async function main(): Promise<void> {
  for (const cmd of ['wrk', 'taskset']) if (!have(cmd)) throw new Error(`${cmd} is required: apt-get install -y wrk util-linux`);
  if (SIZES.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`BENCH_SITES must list positive integers: ${process.env.BENCH_SITES}`);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`BENCH_ROUNDS must be a positive integer: ${process.env.BENCH_ROUNDS}`);
  const root = await mkdtemp(join(tmpdir(), 'statichost-bench-sites-'));
  const dataDir = join(root, 'data');
  let stopPg: (() => Promise<void>) | undefined;
  let pgDir: string | undefined;
  let db: Client | undefined;
  let target: ChildProcess | undefined;
  const rows: Row[] = [];
  const appEnv: Record<string, string> = { DATA_DIR: dataDir };
  if (process.env.SITE_CACHE_MB) appEnv.SITE_CACHE_MB = process.env.SITE_CACHE_MB;
  const start = (args: string[]) =>
    startPinnedTarget(join(__dirname, 'sites-target.ts'), args, { core: APP_CORE, env: appEnv, startSeconds: 300 }).then((t) => {
      target = t.child;
      return t;
    });
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      // Its own directory: the cluster's system user must be able to reach it (see embedded-postgres.ts).
      pgDir = await mkdtemp(join(tmpdir(), 'statichost-bench-sites-pg-'));
      const pg = await startEmbeddedPostgres({ dataDir: pgDir, port: await freePort() });
      pinPostgres(join(pgDir, 'postgres'), WRK_CORE);
      databaseUrl = pg.url;
      const dir = pgDir;
      stopPg = () => pg.stop().then(() => rm(dir, { recursive: true, force: true }));
    }
    appEnv.DATABASE_URL = databaseUrl;
    // The first start migrates the database and deploys the template the seed copies.
    const first = await start(['template']);
    const templateProjectId = first.info.templateProjectId as string;
    await stopTarget(first.child);
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    let seeded = 0;
    for (const n of SIZES) {
      const seed = await seedSites(db, templateProjectId, seeded, n);
      seeded = n;
      console.error(`${n.toLocaleString('en')} sites: seeded ${seed.sites.toLocaleString('en')} more in ${(seed.ms / 1000).toFixed(1)} s; starting the app`);
      appEnv.SITE_WARM_START_HOSTS = String(WARM_START_HOSTS ?? n);
      const rounds: Round[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        if (ROUNDS > 1) console.error(`  round ${round} of ${ROUNDS}`);
        rounds.push(await measure(n));
      }
      rows.push(summary(n, seed.ms, rounds));
    }
  } finally {
    await db?.end().catch(() => undefined);
    if (target) await stopTarget(target).catch(() => undefined);
    await stopPg?.().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
  report(rows);

  /** One round at n sites: a fresh app (cold caches), one host, the cold pass, the warm pass. */
  async function measure(n: number): Promise<Round> {
    const databaseUrl = appEnv.DATABASE_URL;
    // Cold means cold: the last app's list (written when it stopped) would warm this one.
    await db!.query('DELETE FROM site_warm_list');
    const { child, info } = await start([]);
    const port = info.port as number;
    const pid = info.pid as number;
    const url = `http://127.0.0.1:${port}/`;
    const scripts = { one: join(root, 'one.lua'), pass: join(root, `pass-${n}.lua`), random: join(root, `random-${n}.lua`) };
    await writeFile(scripts.one, luaScript('random', 1, port));
    await writeFile(scripts.pass, luaScript('pass', n, port));
    await writeFile(scripts.random, luaScript('random', n, port));
    const run = (script: string, seconds: number) => runWrk({ url, seconds, connections: CONNECTIONS, script, core: WRK_CORE, timeoutSeconds: 30 });
    const busy = { oneHost: 0, cold: 0, warm: 0 };
    const wrk = async (script: string, seconds: number, pass?: keyof typeof busy) => {
      const [cpu0, t0] = [cpuMs(pid), performance.now()];
      const result = await run(script, seconds);
      if (pass) busy[pass] = (cpuMs(pid) - cpu0) / (performance.now() - t0);
      return result;
    };
    checked('warm-up', await wrk(scripts.one, 2));
    if (PROFILE) child.kill('SIGUSR2');
    const oneHost = checked('one host', await wrk(scripts.one, SECONDS, 'oneHost'));
    if (PROFILE) child.kill('SIGUSR1');
    const rssOneHostMb = rssMb(pid);
    console.error(`  one host ${Math.round(oneHost.reqPerSec)} req/s; first pass over ${n.toLocaleString('en')} sites…`);
    if (PROFILE) child.kill('SIGUSR2');
    const pass = checked('first pass', await wrk(scripts.pass, COLD_LIMIT_SECONDS, 'cold'));
    if (PROFILE) child.kill('SIGUSR1');
    const cold = passRate(pass);
    if (cold.requests < n) console.error(`  first pass stopped after ${COLD_LIMIT_SECONDS} s with ${cold.requests} of ${n} sites asked`);
    // The cold pass's analytics flush (every site it asked for: PostgreSQL busy for seconds
    // at 100,000 sites) would starve wrk, which shares PostgreSQL's core, during the warm pass.
    // One flush interval lets the app's timer start it; then it runs to its end.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS));
    const quietMs = await waitForQuietDatabase(databaseUrl, 30_000);
    if (quietMs > 300) console.error(`  waited ${(quietMs / 1000).toFixed(1)} s more for PostgreSQL to finish the cold pass's writes`);
    const before = await transactionsSoFar(databaseUrl);
    if (PROFILE) child.kill('SIGUSR2');
    const warm = checked('second pass', await wrk(scripts.random, SECONDS, 'warm'));
    if (PROFILE) child.kill('SIGUSR1');
    const after = await transactionsSoFar(databaseUrl);
    const rssWarmMb = rssMb(pid);
    // transactionsSoFar's own read is one of them.
    const warmQueriesPerRequest = Math.max(0, after - before - 1) / warm.requests;
    console.error(
      `  first pass ${Math.round(cold.reqPerSec)} req/s (p50 ${cold.p50Ms.toFixed(1)} ms, p99 ${cold.p99Ms.toFixed(1)} ms), second pass ${Math.round(warm.reqPerSec)} req/s, RSS ${rssWarmMb.toFixed(0)} MB`,
    );
    const pairs: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      // Which goes first swaps every pair, so a drift within a pair falls on both alike.
      const rate = { one: 0, all: 0 };
      for (const which of i % 2 === 0 ? (['one', 'all'] as const) : (['all', 'one'] as const)) {
        rate[which] = checked(
          `interleaved ${which === 'one' ? 'one host' : 'all hosts'}`,
          await run(which === 'one' ? scripts.one : scripts.random, PAIR_SECONDS),
        ).reqPerSec;
      }
      pairs.push(rate.all / rate.one);
    }
    console.error(`  interleaved, all hosts over one host: ${pairs.map((x) => x.toFixed(2)).join(', ')} (median ${median(pairs).toFixed(2)}x)`);
    // Stopping writes the list the restarted app loads before it is ready.
    await stopTarget(child);
    const again = await start([]);
    const warmStart = again.info.warmStart as WarmStart;
    const againUrl = `http://127.0.0.1:${again.info.port as number}/`;
    const restartScripts = { one: join(root, 'one-restart.lua'), pass: join(root, `pass-${n}-restart.lua`) };
    await writeFile(restartScripts.one, luaScript('random', 1, again.info.port as number));
    await writeFile(restartScripts.pass, luaScript('pass', n, again.info.port as number));
    // As before the cold pass: the JIT warmed on one host, and PostgreSQL (wrk's core) done with
    // the last app's shutdown flush and this one's loads, so the pass compares with the cold one.
    checked('warm-up after a restart', await runWrk({ url: againUrl, seconds: 2, connections: CONNECTIONS, script: restartScripts.one, core: WRK_CORE }));
    await waitForQuietDatabase(databaseUrl, 30_000);
    const restartPass = checked(
      'first pass after a restart',
      await runWrk({
        url: againUrl,
        seconds: COLD_LIMIT_SECONDS,
        connections: CONNECTIONS,
        script: restartScripts.pass,
        core: WRK_CORE,
        timeoutSeconds: 30,
      }),
    );
    const restart = passRate(restartPass);
    console.error(
      `  after a restart: ${warmStart.sites.toLocaleString('en')} of ${warmStart.listed.toLocaleString('en')} listed sites loaded in ${(warmStart.ms / 1000).toFixed(1)} s; first pass ${Math.round(restart.reqPerSec)} req/s, p50 ${restart.p50Ms.toFixed(1)} ms, p99 ${restart.p99Ms.toFixed(1)} ms`,
    );
    await stopTarget(again.child);
    return {
      oneHost,
      cold,
      warm,
      restart,
      warmStart,
      warmQueriesPerRequest,
      pairs,
      busy,
      rssOneHostMb,
      rssWarmMb,
      siteCacheMb: info.siteCacheMb as number | null,
    };
  }
}

function report(rows: Row[]): void {
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  console.log(
    `\nbench:sites — app on core ${APP_CORE}, wrk (1 thread, ${CONNECTIONS} connections) and PostgreSQL on core ${WRK_CORE}, ${SECONDS} s per timed run`,
  );
  console.table(
    Object.fromEntries(
      rows.map((r) => [
        `${r.sites.toLocaleString('en')} sites`,
        {
          'one host': `${k(r.oneHost.reqPerSec)} req/s, p99 ${r.oneHost.p99Ms.toFixed(1)} ms`,
          'first pass (cold)': `${k(r.cold.reqPerSec)}, p50 ${r.cold.p50Ms.toFixed(1)} / p99 ${r.cold.p99Ms.toFixed(1)} ms${r.cold.requests < r.sites ? ' (stopped short)' : ''}`,
          'second pass (warm)': `${k(r.warm.reqPerSec)} (${r.ratio.toFixed(2)}x), p99 ${r.warm.p99Ms.toFixed(1)} ms`,
          'warm / one host, interleaved': `${r.interleaved.toFixed(2)}x (pairs ${Math.min(...r.pairs).toFixed(2)}–${Math.max(...r.pairs).toFixed(2)})`,
          'warm queries/req': r.warmQueriesPerRequest.toFixed(2),
          'after a restart: loaded, first pass': `${r.warmStart.sites.toLocaleString('en')} in ${(r.warmStart.ms / 1000).toFixed(1)} s; ${k(r.restart.reqPerSec)}, p50 ${r.restart.p50Ms.toFixed(1)} / p99 ${r.restart.p99Ms.toFixed(1)} ms`,
          'app busy one / cold / warm': [r.busy.oneHost, r.busy.cold, r.busy.warm].map((b) => `${Math.round(b * 100)}%`).join(' / '),
          'app CPU µs/req one / warm (ratio)': `${cpuPerRequest(r.oneHost, r.busy.oneHost).toFixed(1)} / ${cpuPerRequest(r.warm, r.busy.warm).toFixed(1)} (${r.cpuRatio.toFixed(2)}x)`,
          'socket errors': r.rounds.reduce((sum, x) => sum + x.oneHost.errors + x.cold.errors + x.warm.errors, 0),
          'RSS one host / warm': `${r.rssOneHostMb.toFixed(0)} / ${r.rssWarmMb.toFixed(0)} MB`,
          seeded: `${(r.seedMs / 1000).toFixed(1)} s`,
        },
      ]),
    ),
  );
  if (ROUNDS > 1) {
    console.log(`medians of ${ROUNDS} rounds (a fresh app each); each round's one host / cold p99 / warm ratio (app busy in the warm pass):`);
    for (const r of rows) {
      const each = r.rounds.map(
        (x) =>
          `${k(x.oneHost.reqPerSec)} / ${x.cold.p99Ms.toFixed(0)} ms / ${(x.warm.reqPerSec / x.oneHost.reqPerSec).toFixed(2)}x (${Math.round(x.busy.warm * 100)}% busy, CPU ratio ${(cpuPerRequest(x.oneHost, x.busy.oneHost) / cpuPerRequest(x.warm, x.busy.warm)).toFixed(2)}x)`,
      );
      console.log(`  ${r.sites.toLocaleString('en')} sites: ${each.join(', ')}`);
    }
  }
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const at = (n: number) => rows.find((r) => r.sites === n);
  const ten = at(10_000);
  const hundred = at(100_000);
  if (ten) {
    const ratio = ten.ratio;
    console.log(`10,000 sites, warm ${ratio.toFixed(2)}x of one host (goal >= 0.9x): ${verdict(ratio >= 0.9)}`);
    console.log(`10,000 sites, warm ${ten.interleaved.toFixed(2)}x of one host, interleaved (goal >= 0.9x): ${verdict(ten.interleaved >= 0.9)}`);
    console.log(`10,000 sites, app CPU per request: one host's is ${ten.cpuRatio.toFixed(2)}x the warm pass's (the ratio of a core-bound app)`);
    console.log(`10,000 sites, cold p99 ${ten.cold.p99Ms.toFixed(1)} ms (goal <= 20 ms): ${verdict(ten.cold.p99Ms <= 20)}`);
  }
  if (hundred) {
    const ratio = hundred.ratio;
    const budget = process.env.SITE_CACHE_MB ? ` (SITE_CACHE_MB=${process.env.SITE_CACHE_MB}, not the default budget)` : '';
    console.log(`100,000 sites, warm ${ratio.toFixed(2)}x of one host (goal >= 0.7x)${budget}: ${verdict(ratio >= 0.7)}`);
    console.log(
      `100,000 sites, warm ${hundred.interleaved.toFixed(2)}x of one host, interleaved (goal >= 0.7x)${budget}: ${verdict(hundred.interleaved >= 0.7)}`,
    );
    console.log(`100,000 sites, app CPU per request: one host's is ${hundred.cpuRatio.toFixed(2)}x the warm pass's (the ratio of a core-bound app)`);
  }
  for (const r of rows) {
    const what = `${r.sites.toLocaleString('en')} sites, RSS ${r.rssWarmMb.toFixed(0)} MB`;
    if (r.siteCacheMb === null) console.log(`${what}: budget n/a (this build has no SITE_CACHE_MB)`);
    else {
      const limit = r.siteCacheMb + RSS_OVERHEAD_MB;
      console.log(`${what} (goal <= SITE_CACHE_MB ${r.siteCacheMb} + ${RSS_OVERHEAD_MB} MB = ${limit} MB): ${verdict(r.rssWarmMb <= limit)}`);
    }
  }
  console.log('one-host throughput against another commit: BENCH_BASELINE=<commit> npm run bench:serve-compare (goal >= 0.97x)');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
