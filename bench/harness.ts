/**
 * Shared plumbing for the benchmarks: a real PostgreSQL (embedded unless
 * DATABASE_URL is set), the real app on a loopback port, and an API token.
 */
import 'reflect-metadata';

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { createApp, type CreatedApp } from '../src/app.factory';
import { freePort } from '../src/common/free-port';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';

export { freePort };

export interface BenchApp extends CreatedApp {
  baseUrl: string;
  port: number;
  dataDir: string;
  token: string;
  jwt: string;
  workspaceId: string;
  close(): Promise<void>;
}

export async function startBenchApp(env: Record<string, string> = {}): Promise<BenchApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'statichost-bench-'));
  let databaseUrl = process.env.DATABASE_URL;
  let stopPg: (() => Promise<void>) | undefined;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    databaseUrl = pg.url;
    stopPg = () => pg.stop();
  }
  const port = await freePort();
  const created = await createApp({
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      SWEEP_INTERVAL_SECONDS: '0',
      // Benchmarks measure speed, not the free plan's quotas (3 projects, 10 deploys a month): lift them unless a bench sets its own.
      PLANS_JSON: JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, storageBytes: null, maxFileBytes: null, maxTtl: null } }),
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      ...env,
    },
  });
  await created.app.listen(port, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  const email = `bench-${Date.now()}@example.com`;
  const reg = await api(baseUrl, 'POST', '/auth/register', { email, password: 'bench password 1', name: 'Bench' });
  const jwt = reg.accessToken as string;
  const workspaceId = (reg.workspace as { id: string }).id;
  const tok = await api(
    baseUrl,
    'POST',
    '/access-tokens',
    { name: 'bench', scopes: ['deploy', 'read', 'admin', 'delete'] },
    { Authorization: `Bearer ${jwt}`, 'X-Workspace-Id': workspaceId },
  );
  return {
    ...created,
    baseUrl,
    port,
    dataDir,
    jwt,
    workspaceId,
    token: tok.token as string,
    async close() {
      await created.app.close();
      await stopPg?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function api(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return text ? JSON.parse(text) : {};
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;

export interface WrkResult {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  /** Socket errors wrk counted (connect, read, write, timeout). */
  errors: number;
  /** How long wrk ran, as it reports it ("N requests in 10.00s"). */
  runtimeMs: number;
}

const toMs = (m: RegExpExecArray | null) => (m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN);

/**
 * Runs wrk (one thread, `connections` connections, with --latency) without blocking
 * this process, pinned to `core` when taskset exists; `script` is a wrk Lua script
 * (for a POST). Throws when wrk fails; non-2xx answers are counted, not thrown.
 */
export async function runWrk(opts: {
  url: string;
  seconds: number;
  connections: number;
  headers?: string[];
  script?: string;
  core?: number;
  /** Niceness to run wrk at (negative: ahead of the machine's other work; root only). */
  nice?: number;
  /** wrk's per-request timeout (its default is 2 s); slower answers count as errors. */
  timeoutSeconds?: number;
}): Promise<WrkResult> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const args = ['wrk', '-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency'];
  if (opts.timeoutSeconds !== undefined) args.push('--timeout', `${opts.timeoutSeconds}s`);
  for (const h of opts.headers ?? []) args.push('-H', h);
  if (opts.script) args.push('-s', opts.script);
  args.push(opts.url);
  const pinnedOnly = opts.core === undefined ? args : ['taskset', '-c', String(opts.core), ...args];
  const pinned = opts.nice === undefined ? pinnedOnly : ['nice', '-n', String(opts.nice), ...pinnedOnly];
  const { stdout: out } = await promisify(execFile)(pinned[0], pinned.slice(1), { encoding: 'utf8' });
  return {
    reqPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50Ms: toMs(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out)),
    p99Ms: toMs(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out)),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    runtimeMs: toMs(/requests in ([\d.]+)(us|ms|s)\b/.exec(out)) || Number(/requests in ([\d.]+)m\b/.exec(out)?.[1] ?? NaN) * 60_000,
    errors: (/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.slice(1) ?? []).reduce((a, b) => a + Number(b), 0),
  };
}

/** Whether a command is on the PATH (wrk, taskset, nginx). */
export function have(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a bench target script in its own process pinned to `core` (taskset), so the load
 * generator and the bench's bookkeeping never share the measured server's core. The
 * target prints one JSON line (`{ready, port, ...}`) on stdout once it accepts connections.
 * It is compiled as it loads by bench/swc-require.js: like production, no TypeScript compiler in its heap.
 */
export async function startPinnedTarget(
  script: string,
  args: string[],
  options: { core: number; env?: Record<string, string>; nodeArgs?: string[]; startSeconds?: number; cwd?: string },
): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = spawn(
    'taskset',
    ['-c', String(options.core), process.execPath, ...(options.nodeArgs ?? []), '-r', join(__dirname, 'swc-require.js'), script, ...args],
    {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const name = args[0] ?? script;
  const seconds = options.startSeconds ?? 120;
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += String(d);
      const line = buf.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    setTimeout(() => reject(new Error(`${name} did not start in ${seconds} s`)), seconds * 1000).unref();
  });
  return { child, info };
}

const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time a process has used so far, in ms, from /proc (Linux); 0 when it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU time used so far by one PostgreSQL server (its postmaster, named by the first line
 * of `<dataDir>/postmaster.pid`, and the backends it started), in ms. Backends that have
 * exited are not counted: the app's pooled connections stay open for a whole run.
 */
export function postgresCpuMs(dataDir: string): number {
  return postgresProcesses(dataDir).reduce((total, pid) => total + cpuMs(pid), 0);
}

/** One PostgreSQL server's processes: its postmaster (first line of `<dataDir>/postmaster.pid`) and the processes it started. */
function postgresProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return pids;
}

/**
 * Transactions committed or rolled back so far in the database of `url` (every statement
 * sent outside a transaction is one): read before and after a run, queries per request.
 * PostgreSQL publishes a backend's counts up to a second late, hence the wait.
 */
export async function transactionsSoFar(url: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/**
 * Waits until no other session of the database of `url` runs a statement (two reads 100 ms
 * apart), at most `maxMs`; returns how long it waited. A bench whose load generator shares
 * its core with PostgreSQL calls it between passes, so that the writes one pass caused (an
 * analytics flush of every site it asked for) do not slow the next pass's load generator.
 */
export async function waitForQuietDatabase(url: string, maxMs: number): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const start = performance.now();
  try {
    let quiet = 0;
    while (quiet < 2 && performance.now() - start < maxMs) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()",
      );
      quiet = rows[0].n === 0 ? quiet + 1 : 0;
      if (quiet < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return performance.now() - start;
  } finally {
    await client.end();
  }
}

/**
 * Pins a PostgreSQL server (and, by inheritance, every backend it starts later) to `core`,
 * so that it never takes CPU from a server pinned elsewhere, and ranks it above whatever
 * else runs there (nice -10; root only, else left as it is): on a shared core a query
 * would otherwise wait out the load generator's time slice, a wait that a database on its
 * own machine, as in production, never has.
 */
export function pinPostgres(dataDir: string, core: number): void {
  for (const pid of postgresProcesses(dataDir)) {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
    try {
      execFileSync('renice', ['-n', '-10', '-p', String(pid)], { stdio: 'ignore' });
    } catch {
      // Not root: the ranking is a refinement, the pinning is what matters.
    }
  }
}

/**
 * CPU profiles of a target's measured runs only (not of its start or seeding): SIGUSR2
 * starts one, SIGUSR1 writes it to `<dir>/<name>-<time>.cpuprofile`. The bench sends the
 * signals around each run it wants profiled.
 */
export async function profileOnSignal(dir: string, name: string): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  process.on('SIGUSR2', () => void session.post('Profiler.start'));
  process.on('SIGUSR1', () => {
    void session.post('Profiler.stop').then(({ profile }) => writeFileSync(join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile)));
  });
}
