/**
 * The app under test for bench:sites, run as its own process so it can be pinned to a
 * core. It uses the database (DATABASE_URL) and data directory (DATA_DIR) bench/sites.ts
 * gives it, so every start sees the same seeded sites and the same stored blob.
 *
 * With `template` as its argument it first deploys the template site through the API
 * (the one the seed copies) and reports its project id. Prints one JSON line
 * `{ready, port, templateProjectId?, siteCacheMb}` on stdout when it accepts connections.
 */
import 'reflect-metadata';

import { api, startBenchApp } from './harness';
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
  process.stdout.write(`${JSON.stringify({ ready: true, port: app.port, pid: process.pid, templateProjectId, siteCacheMb })}\n`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
