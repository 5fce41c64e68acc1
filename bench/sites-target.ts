/**
 * The app under test for bench:sites, run as its own process so it can be pinned to a
 * core. It uses the database (DATABASE_URL) and data directory (DATA_DIR) bench/sites.ts
 * gives it, so every start sees the same seeded sites and the same stored blob.
 *
 * With `template` as its argument it first deploys the template site through the API
 * (the one the seed copies) and reports its project id. Prints one JSON line
 * `{ready, port, templateProjectId?, siteCacheMb}` on stdout when it accepts connections.
 *
 * With BENCH_CPU_PROF=<dir>, SIGUSR2 starts a CPU profile and SIGUSR1 writes it to
 * `<dir>/sites-<time>.cpuprofile` (bench/sites.ts sends them around one host, the cold pass and the warm pass);
 * with BENCH_HEAP_SNAPSHOT=<dir>, SIGUSR1 writes a heap snapshot there instead.
 */
import 'reflect-metadata';

import { join } from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

import { SiteWarmStart } from '../src/sites/warm-start/site-warm-start.service';
import { api, profileOnSignal, startBenchApp } from './harness';
import { SITE_PAGE, TEMPLATE_SLUG } from './sites-seed';

async function main(): Promise<void> {
  const withTemplate = process.argv[2] === 'template';
  // startBenchApp gives every start a fresh DATA_DIR of its own unless told: the stored blob must outlive this process.
  const dataDir = process.env.DATA_DIR;
  const app = await startBenchApp({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', ...(dataDir ? { DATA_DIR: dataDir } : {}) });
  let templateProjectId: string | undefined;
  if (withTemplate) {
    const auth = { Authorization: `Bearer ${app.token}` };
    await api(
      app.baseUrl,
      'POST',
      '/v1/deployments',
      { project_slug: TEMPLATE_SLUG, ttl: 'forever', files: [{ path: 'index.html', content: SITE_PAGE }] },
      auth,
    );
    const list = await api(app.baseUrl, 'GET', '/projects?limit=100', undefined, auth);
    templateProjectId = (list.data as { id: string; slug: string }[]).find((p) => p.slug === TEMPLATE_SLUG)?.id;
    if (!templateProjectId) throw new Error('the template project is not listed');
  }
  // The site router's memory budget as the app resolved it (SITE_CACHE_MB, or the default from the instance's memory): the RSS goal is stated against it.
  const siteCacheMb = Math.round(app.config.siteCacheBytes / (1024 * 1024));
  // Ready once the warm start has loaded what the last instance served (bench:sites measures the pass after it).
  const warmStart = await app.app.get(SiteWarmStart).warmed;
  process.stdout.write(`${JSON.stringify({ ready: true, port: app.port, pid: process.pid, templateProjectId, siteCacheMb, warmStart })}\n`);
  if (process.env.BENCH_CPU_PROF) await profileOnSignal(process.env.BENCH_CPU_PROF, 'sites');
  else if (process.env.BENCH_HEAP_SNAPSHOT) snapshotOnSignal(process.env.BENCH_HEAP_SNAPSHOT);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function snapshotOnSignal(dir: string): void {
  // bench/sites.ts sends SIGUSR2 before each run (for profiles): its default action would end the process.
  process.on('SIGUSR2', () => undefined);
  process.on('SIGUSR1', () => {
    // What the process holds before the snapshot's collection: V8's spaces (committed against used) and the rest.
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, `${Math.round(s.space_used_size / 1e6)}/${Math.round(s.space_size / 1e6)} MB`]),
    );
    process.stderr.write(`memory ${JSON.stringify({ ...process.memoryUsage(), spaces })}\n`);
    writeHeapSnapshot(join(dir, `sites-${Date.now()}.heapsnapshot`));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
