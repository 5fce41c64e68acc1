/**
 * npm run bench:serve-compare — the site router of this checkout beside the one of another
 * commit, in one run (issue 26): BENCH_BASELINE=<commit> (default e4f4188, the last commit
 * before the features of issues 12, 14 and 18).
 *
 * The baseline is a git worktree of that commit in the temp directory, with its own
 * dependencies (its lock file differs): the current node_modules is copied there as hard
 * links, then `npm install` from its lock file changes only what differs. The worktree is
 * kept for the next run (`git worktree remove --force <dir>` deletes it); BENCH_BASELINE_FRESH=1
 * makes it again. Both targets are that commit's and this checkout's own
 * bench/serve-target.ts, compiled as they load by this checkout's bench/swc-require.js (the
 * two .swcrc are the same), each pinned to core 0, wrk to core 1, 50 connections.
 *
 * This checkout runs with every feature on: metrics and analytics enabled, and its two
 * sites carry a `_headers` (rules applying to every file) and a `_redirects` (rules
 * matching none) — BENCH_RULE_FILES=1 in serve-target.ts. The baseline gets the same
 * settings and runs what it has of them (so a later commit can be the baseline of a change).
 *
 * Rows: the 2 KB page, the 50 KB file, and the 2 KB page of the password-gated site with a
 * valid cookie, each with a browser's User-Agent (every answer is a page view, visitor hash
 * included). BENCH_ROUNDS rounds (default 3) of BENCH_SECONDS (default 10) per row and
 * build, alternating baseline and current (which goes first swaps every round, so drift
 * in the machine's load falls on both alike). Printed per row: median req/s (and range),
 * median p99, CPU time per request (the target's user + system time over the run, from
 * /proc, divided by the requests wrk counted: steadier than req/s on a shared machine),
 * and current/baseline. Goal: >= 0.97x on every row.
 *
 * BENCH_CPU_PROF=<dir>: both targets run with --cpu-prof and write their profile there
 * when they stop (startup included; the measured runs dominate it).
 *
 * BENCH_NICE=<n> (e.g. -10; root only): both targets and wrk run at that niceness, so a
 * machine busy with other work takes less of their time slices while they are measured.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { cpuMs, have, runWrk, startPinnedTarget, type WrkResult } from './harness';

const ROOT = resolve(__dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;
/** BENCH_MODE: `both` (default), `alternating` or `side` (side by side only). */
const MODE = process.env.BENCH_MODE ?? 'both';
if (!['both', 'alternating', 'side'].includes(MODE)) throw new Error(`BENCH_MODE must be both, alternating or side, not ${MODE}`);
const NICE = process.env.BENCH_NICE === undefined ? undefined : Number(process.env.BENCH_NICE);
const BROWSER_UA = 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
// As bench:serve's files. wrk asks for no encoding, so both builds send identity bytes.
const FILES: Record<string, string> = {
  'file-2k.html': `<p>${randomBytes(1500).toString('base64').slice(0, 2041)}</p>`,
  'file-50k.html': `<p>${randomBytes(38_000).toString('base64').slice(0, 51_193)}</p>`,
};

interface Row {
  name: string;
  slug: string;
  path: string;
  gated: boolean;
}

const ALL_FEATURES = { METRICS_ENABLED: 'true', ANALYTICS_ENABLED: 'true', BENCH_RULE_FILES: '1' };

const ROWS: Row[] = [
  { name: '2 KB page', slug: 'bench', path: '/file-2k', gated: false },
  { name: '50 KB file', slug: 'bench', path: '/file-50k', gated: false },
  { name: 'gated 2 KB, valid cookie', slug: 'bench-gated', path: '/file-2k', gated: true },
];

interface Target {
  label: 'baseline' | 'current';
  pid: number;
  port: number;
  cookie: string;
  stop(): Promise<void>;
}

interface Run {
  reqPerSec: number;
  p99Ms: number;
  cpuUsPerRequest: number;
}

function git(args: string[], cwd = ROOT): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A worktree of `commit` with its own dependencies installed; reused while its marker file is there. */
function prepareBaseline(commit: string): string {
  const sha = git(['rev-parse', '--verify', `${commit}^{commit}`]);
  const dir = join(tmpdir(), `statichost-baseline-${sha.slice(0, 12)}`);
  const marker = join(dir, '.bench-ready');
  if (process.env.BENCH_BASELINE_FRESH === '1' && existsSync(dir)) git(['worktree', 'remove', '--force', dir]);
  if (existsSync(marker)) {
    console.log(`baseline ${sha.slice(0, 12)}: reusing ${dir} (${readFileSync(marker, 'utf8').trim()})`);
    return dir;
  }
  if (existsSync(dir)) git(['worktree', 'remove', '--force', dir]);
  git(['worktree', 'prune']);
  const started = Date.now();
  git(['worktree', 'add', '--detach', dir, sha]);
  // Hard links: seconds and no space; npm then replaces (never edits) what the old lock file wants otherwise.
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  const copied = Date.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  const note = `worktree and hard-linked node_modules ${((copied - started) / 1000).toFixed(1)} s, npm install of the differences ${((Date.now() - copied) / 1000).toFixed(1)} s`;
  writeFileSync(marker, `${note}\n`);
  console.log(`baseline ${sha.slice(0, 12)}: ${dir}, ${note}`);
  return dir;
}

async function startTarget(label: Target['label'], root: string, env: Record<string, string>): Promise<Target> {
  const profDir = process.env.BENCH_CPU_PROF;
  const nodeArgs = profDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profDir), '--cpu-prof-name', `${label}-${Date.now()}.cpuprofile`] : [];
  const { child, info } = await startPinnedTarget(join(root, 'bench', 'serve-target.ts'), ['statichost'], {
    core: 0,
    cwd: root,
    nodeArgs,
    env: { ...env, BENCH_FILES: JSON.stringify(FILES) },
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // Every thread: Linux sets a niceness per thread, and Node's (GC, libuv pool) exist by now.
  if (NICE !== undefined) execFileSync('renice', ['-n', String(NICE), '-p', ...readdirSync(`/proc/${child.pid}/task`)], { stdio: 'ignore' });
  return {
    label,
    pid: child.pid!,
    port: info.port as number,
    cookie: info.cookie as string,
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    },
  };
}

function wrkHeaders(target: Target, row: Row): string[] {
  const headers = [`Host: ${row.slug}.localhost:${target.port}`, BROWSER_UA];
  if (row.gated) headers.push(`Cookie: ${target.cookie}`);
  return headers;
}

/** wrk on core 1 against one target's row, checked: every answer 2xx or 3xx, and some answered. */
async function load(target: Target, row: Row, seconds: number): Promise<WrkResult> {
  const r = await runWrk({
    url: `http://127.0.0.1:${target.port}${row.path}`,
    seconds,
    connections: CONNECTIONS,
    headers: wrkHeaders(target, row),
    core: 1,
    nice: NICE,
  });
  if (r.non2xx > 0) throw new Error(`${target.label} ${row.name}: ${r.non2xx} answers were not 2xx or 3xx`);
  if (r.requests === 0) throw new Error(`${target.label} ${row.name}: no requests answered`);
  return r;
}

async function measure(target: Target, row: Row, seconds: number): Promise<Run> {
  const cpuBefore = cpuMs(target.pid);
  const r = await load(target, row, seconds);
  const cpu = cpuMs(target.pid) - cpuBefore;
  return { reqPerSec: r.reqPerSec, p99Ms: r.p99Ms, cpuUsPerRequest: (cpu * 1000) / r.requests };
}

/**
 * Both builds loaded at the same time, each by its own wrk with CONNECTIONS connections:
 * the scheduler gives the two busy servers core 0 in turns of a few milliseconds, so a slow
 * stretch of the machine falls on both alike, and their answers in the same seconds compare
 * what one answer costs each. Returns current's requests over baseline's.
 */
async function sideBySide(baseline: Target, current: Target, row: Row, seconds: number, currentFirst: boolean): Promise<{ ratio: number; cpuRatio: number }> {
  const before = [cpuMs(baseline.pid), cpuMs(current.pid)];
  // Which wrk starts first swaps every round, as the alternating runs' order does.
  const [b, c] = currentFirst
    ? await Promise.all([load(current, row, seconds), load(baseline, row, seconds)]).then(([cc, bb]) => [bb, cc])
    : await Promise.all([load(baseline, row, seconds), load(current, row, seconds)]);
  const cpu = [cpuMs(baseline.pid) - before[0], cpuMs(current.pid) - before[1]];
  return { ratio: c.requests / b.requests, cpuRatio: cpu[1] / c.requests / (cpu[0] / b.requests) };
}

/** One GET through node's client, for a status check before measuring (wrk does not show them). */
async function statusOf(target: Target, row: Row): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((done, fail) => {
    const headers: Record<string, string> = { Host: `${row.slug}.localhost:${target.port}` };
    if (row.gated) headers.Cookie = target.cookie;
    const req = request({ host: '127.0.0.1', port: target.port, path: row.path, headers }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end();
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  for (const cmd of ['wrk', 'taskset', 'git', 'npm']) if (!have(cmd)) throw new Error(`${cmd} is required (apt-get install -y wrk util-linux git)`);
  const baselineDir = prepareBaseline(process.env.BENCH_BASELINE ?? 'e4f4188');
  const current = git(['rev-parse', '--short=12', 'HEAD']) + (git(['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : '');
  const targets: Target[] = [];
  const runs = new Map<string, Run[]>();
  const paired = new Map<string, { ratio: number; cpuRatio: number }[]>();
  try {
    // Both get the same settings: a commit before these features ignores them, a later one (a
    // before/after of a change) then runs with every feature on as well.
    targets.push(await startTarget('baseline', baselineDir, ALL_FEATURES));
    // BENCH_CURRENT_ENV='{"ANALYTICS_ENABLED":"false"}': this checkout with a feature off, to see what it costs.
    targets.push(await startTarget('current', ROOT, { ...ALL_FEATURES, ...(JSON.parse(process.env.BENCH_CURRENT_ENV ?? '{}') as Record<string, string>) }));
    for (const row of ROWS)
      for (const t of targets) {
        const status = await statusOf(t, row);
        if (status !== 200) throw new Error(`${t.label} answers ${row.name} (${row.slug} ${row.path}) with ${status}, not 200`);
        // Warm the JIT and the router's caches of both alike before measuring.
        await measure(t, row, 2);
      }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const row of MODE === 'side' ? [] : ROWS)
        for (const t of order) {
          const run = await measure(t, row, SECONDS);
          const key = `${row.name}\t${t.label}`;
          runs.set(key, [...(runs.get(key) ?? []), run]);
          console.log(
            `round ${round + 1}/${ROUNDS} ${row.name.padEnd(26)} ${t.label.padEnd(8)} ${Math.round(run.reqPerSec)} req/s, p99 ${run.p99Ms.toFixed(2)} ms, ${run.cpuUsPerRequest.toFixed(1)} µs CPU/request`,
          );
        }
      for (const row of MODE === 'alternating' ? [] : ROWS) {
        const pair = await sideBySide(targets[0], targets[1], row, SECONDS, round % 2 === 1);
        paired.set(row.name, [...(paired.get(row.name) ?? []), pair]);
        console.log(
          `round ${round + 1}/${ROUNDS} ${row.name.padEnd(26)} side by side${round % 2 === 1 ? ' (current first)' : ''}: current/baseline ${pair.ratio.toFixed(3)}x requests, ${pair.cpuRatio.toFixed(3)}x CPU/request`,
        );
      }
    }
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
  if (MODE !== 'side') reportAlternating(runs, current);
  if (MODE !== 'alternating') reportSideBySide(paired);
}

function reportAlternating(runs: Map<string, Run[]>, current: string): void {
  console.log(
    `\nbench:serve-compare — baseline ${process.env.BENCH_BASELINE ?? 'e4f4188'} vs current ${current}; ${ROUNDS} rounds × ${SECONDS} s, ${CONNECTIONS} connections, servers on core 0, wrk on core 1`,
  );
  const table: Record<string, Record<string, string>> = {};
  let allMet = true;
  for (const row of ROWS) {
    const [base, cur] = (['baseline', 'current'] as const).map((label) => runs.get(`${row.name}\t${label}`)!);
    const rps = (rs: Run[]) => rs.map((r) => r.reqPerSec);
    const ratio = median(rps(cur)) / median(rps(base));
    const cpuRatio = median(cur.map((r) => r.cpuUsPerRequest)) / median(base.map((r) => r.cpuUsPerRequest));
    allMet &&= ratio >= 0.97;
    for (const [label, rs] of [
      ['baseline', base],
      ['current', cur],
    ] as const)
      table[`${row.name}, ${label}`] = {
        'req/s (median)': String(Math.round(median(rps(rs)))),
        'req/s range': `${Math.round(Math.min(...rps(rs)))}–${Math.round(Math.max(...rps(rs)))}`,
        'p99 ms (median)': median(rs.map((r) => r.p99Ms)).toFixed(2),
        'µs CPU/request': median(rs.map((r) => r.cpuUsPerRequest)).toFixed(1),
        'current/baseline': label === 'current' ? `${ratio.toFixed(3)}x req/s, ${cpuRatio.toFixed(3)}x CPU` : '',
      };
  }
  console.table(table);
  console.log(`current >= 0.97x of baseline req/s on every row, alternating: ${allMet ? 'MET' : 'MISSED'}`);
}

function reportSideBySide(paired: Map<string, { ratio: number; cpuRatio: number }[]>): void {
  const sideTable: Record<string, Record<string, string>> = {};
  let sideMet = true;
  for (const row of ROWS) {
    const pairs = paired.get(row.name)!;
    const ratios = pairs.map((p) => p.ratio);
    sideMet &&= median(ratios) >= 0.97;
    sideTable[row.name] = {
      'current/baseline requests (median)': `${median(ratios).toFixed(3)}x`,
      range: `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`,
      'CPU/request (median)': `${median(pairs.map((p) => p.cpuRatio)).toFixed(3)}x`,
    };
  }
  console.log(`\nside by side — both servers loaded at once on core 0, ${CONNECTIONS} connections each, ${ROUNDS} rounds × ${SECONDS} s`);
  console.table(sideTable);
  console.log(`current >= 0.97x of baseline requests on every row, side by side: ${sideMet ? 'MET' : 'MISSED'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
