/**
 * npm run bench:startup — time from `npm start` to the first 200 of /health, the way a
 * user starts the service: a first start (no dist/, a new DATA_DIR: compile, initdb,
 * migrations) and restarts with unchanged sources. Goals (issue 15): <= 15 s first,
 * <= 2 s on a restart. The first start compiles into this checkout's dist/ (as a fresh
 * clone's would); it removes dist/ first, so run it when nothing else uses dist/.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { freePort } from '../src/common/free-port';

const ROOT = join(__dirname, '..');
const RESTARTS = Number(process.env.BENCH_RUNS ?? 3);

async function timeToFirst200(dataDir: string, port: number, pgPort: number): Promise<number> {
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_POSTGRES_PORT: String(pgPort), LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error('no 200 from /health within 120 s');
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    // SIGTERM to the whole group (npm, its shell, node): the app stops its PostgreSQL cleanly.
    if (child.exitCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'statichost-bench-start-'));
  await chmod(dataDir, 0o755); // the embedded server runs as `postgres` when this runs as root
  const [port, pgPort] = [await freePort(), await freePort()];
  try {
    await rm(join(ROOT, 'dist'), { recursive: true, force: true });
    const first = await timeToFirst200(join(dataDir, 'data'), port, pgPort);
    console.log(`first start (compile + initdb + migrations): ${(first / 1000).toFixed(2)} s (goal <= 15 s)`);
    const restarts: number[] = [];
    for (let i = 0; i < RESTARTS; i++) restarts.push(await timeToFirst200(join(dataDir, 'data'), port, pgPort));
    const list = restarts.map((t) => (t / 1000).toFixed(2)).join(', ');
    console.log(`restart, unchanged sources: ${list} s (goal <= 2 s)`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
