/**
 * npm run bench:quotas — what plans and quotas cost a deploy.
 *
 * Every deploy takes its workspace's row lock and counts (deployments this month,
 * storage after the deploy) inside its transaction. Storage is kept as the set of
 * the workspace's distinct blobs, so a deploy looks up only its own files; after
 * deployments expire or are deleted the set is rebuilt from the manifests (by the
 * sweeper, or by the next deploy if it comes first).
 *
 * Measured: one-file deploys in an empty workspace and in one already holding
 * 200 deployments x 500 files (100,000 manifest rows, half shared); the deploy that
 * has to rebuild that workspace's count; GET /workspaces/:id there; and 20
 * concurrent deploys in one workspace (they queue on its row lock) against 20
 * spread over 20 workspaces.
 *
 * Targets: deploy p50 in the big workspace <= empty workspace p50 + 25 ms (the
 * quota's cost does not grow with history); rebuild deploy p50 <= 1 s at 100,000
 * rows; GET /workspaces/:id p50 <= 50 ms; 20 concurrent deploys in one workspace
 * <= 2x the time of 20 spread over 20 workspaces.
 */
import { performance } from 'node:perf_hooks';

import { DataSource } from 'typeorm';

import { api, ms, percentile, startBenchApp } from './harness';

const DEPLOYMENTS = 200;
const FILES_PER_DEPLOYMENT = 500;
const PROJECTS = 10;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const CONCURRENT = 20;

/** Storage metered (with room to spare); projects and deployments unlimited so the bench can repeat. */
const PLANS = { free: { projects: null, deploymentsPerMonth: null, storageBytes: '1 TB', maxFileBytes: null, maxTtl: null } };

async function seed(ds: DataSource, workspaceId: string, tag: string): Promise<void> {
  await ds.query(
    `INSERT INTO projects (id, workspace_id, name, slug) SELECT 'proj_seed' || $2 || g, $1, 'seed ' || g, 'seed-' || $2 || '-' || g FROM generate_series(1, $3) g`,
    [workspaceId, tag, PROJECTS],
  );
  await ds.query(
    `INSERT INTO deployments (id, project_id, workspace_id, version, status, size_bytes, file_count, ttl, expires_at, created_by, created_at)
     SELECT 'dep_seed' || $2 || g, 'proj_seed' || $2 || (1 + g % $3), $1, g, CASE WHEN g > $4 - $3 THEN 'live' ELSE 'archived' END, 0, $5, 'forever', NULL, 'bench', now()
     FROM generate_series(1, $4) g`,
    [workspaceId, tag, PROJECTS, DEPLOYMENTS, FILES_PER_DEPLOYMENT],
  );
  // Half of each deployment's files are shared by every deployment, half are its own.
  await ds.query(
    `INSERT INTO deployment_files (deployment_id, path, sha256, size, content_type)
     SELECT 'dep_seed' || $1 || d, 'f' || f || '.html',
            encode(sha256(convert_to(CASE WHEN f % 2 = 0 THEN 'shared' || f ELSE $1 || d || '-' || f END, 'UTF8')), 'hex'),
            1000 + f, 'text/html'
     FROM generate_series(1, $2) d, generate_series(1, $3) f`,
    [tag, DEPLOYMENTS, FILES_PER_DEPLOYMENT],
  );
  await ds.query('ANALYZE projects; ANALYZE deployments; ANALYZE deployment_files');
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

async function newWorkspaceToken(baseUrl: string, label: string): Promise<string> {
  const reg = await api(baseUrl, 'POST', '/auth/register', {
    email: `bench-q-${label}-${Date.now()}@example.com`,
    password: 'bench password 1',
    name: 'Bench',
  });
  const tok = await api(
    baseUrl,
    'POST',
    '/access-tokens',
    { name: 'bench', scopes: ['deploy'] },
    {
      Authorization: `Bearer ${reg.accessToken as string}`,
      'X-Workspace-Id': (reg.workspace as { id: string }).id,
    },
  );
  return tok.token as string;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function main(): Promise<void> {
  const app = await startBenchApp({ LOG_LEVEL: 'silent', PLANS_JSON: JSON.stringify(PLANS) });
  const ds = app.app.get(DataSource);
  const big = { Authorization: `Bearer ${app.token}` };
  const empty = { Authorization: `Bearer ${await newWorkspaceToken(app.baseUrl, 'empty')}` };
  const jwt = { Authorization: `Bearer ${app.jwt}` };
  const report: Record<string, string>[] = [];
  const row = (label: string, xs: number[]) => {
    report.push({ case: label, p50: ms(percentile(xs, 50)), p95: ms(percentile(xs, 95)) });
    return percentile(xs, 50);
  };
  try {
    await seed(ds, app.workspaceId, 'a');
    const [{ rows }] = await ds.query(
      'SELECT count(*)::int AS rows FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id WHERE d.workspace_id = $1',
      [app.workspaceId],
    );
    const deployOnce = (auth: Record<string, string>, i: number) =>
      api(
        app.baseUrl,
        'POST',
        '/v1/deployments',
        { project_slug: auth === big ? 'bench-big' : 'bench-empty', files: [{ path: 'index.html', content: `<p>${i}</p>` }] },
        auth,
      );
    // Warm-up; the first deploy in the seeded workspace counts its storage (never counted before).
    for (let i = 0; i < 5; i++) {
      await deployOnce(big, -i);
      await deployOnce(empty, -i);
    }

    const series = async (auth: Record<string, string>) => {
      const xs: number[] = [];
      for (let i = 0; i < SAMPLES; i++) xs.push(await timed(() => deployOnce(auth, i)));
      return sorted(xs);
    };
    const emptyP50 = row('deploy, empty workspace', await series(empty));
    const bigP50 = row(`deploy, workspace with ${rows} manifest rows`, await series(big));

    // An expiry makes the count stale: the next deploy rebuilds it (unless the sweeper did first).
    const rebuilds: number[] = [];
    for (let i = 0; i < 5; i++) {
      await ds.query(
        `UPDATE deployments SET status = 'expired' WHERE id = (SELECT id FROM deployments WHERE workspace_id = $1 AND status = 'archived' LIMIT 1)`,
        [app.workspaceId],
      );
      rebuilds.push(await timed(() => deployOnce(big, 1000 + i)));
    }
    const rebuildP50 = row(`deploy that recounts ${rows} manifest rows`, sorted(rebuilds));

    const usage: number[] = [];
    for (let i = 0; i < SAMPLES; i++) usage.push(await timed(() => api(app.baseUrl, 'GET', `/workspaces/${app.workspaceId}`, undefined, jwt)));
    const usageP50 = row('GET /workspaces/:id (usage)', sorted(usage));

    // Concurrency: 20 deploys to 20 projects of one workspace, against 20 workspaces with one each.
    const oneWorkspace = await timed(() =>
      Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: `bench-one-${i}`, files: [{ path: 'index.html', content: `<p>one ${i}</p>` }] }, big),
        ),
      ),
    );
    const others: string[] = [];
    for (let i = 0; i < CONCURRENT; i++) others.push(await newWorkspaceToken(app.baseUrl, String(i)));
    const manyWorkspaces = await timed(() =>
      Promise.all(
        others.map((token, i) =>
          api(
            app.baseUrl,
            'POST',
            '/v1/deployments',
            { project_slug: `bench-many-${i}`, files: [{ path: 'index.html', content: `<p>many ${i}</p>` }] },
            { Authorization: `Bearer ${token}` },
          ),
        ),
      ),
    );
    report.push({ case: `${CONCURRENT} concurrent deploys, one workspace (wall)`, p50: ms(oneWorkspace), p95: '' });
    report.push({ case: `${CONCURRENT} concurrent deploys, ${CONCURRENT} workspaces (wall)`, p50: ms(manyWorkspaces), p95: '' });

    console.log(`\nbench:quotas — ${SAMPLES} samples per case, local driver, ${DEPLOYMENTS} seeded deployments x ${FILES_PER_DEPLOYMENT} files`);
    console.table(report);
    const growth = bigP50 - emptyP50;
    const ratio = oneWorkspace / manyWorkspaces;
    const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
    console.log(`deploy cost of a long history        ${growth >= 0 ? '+' : ''}${ms(growth)}   target <= +25 ms   ${verdict(growth <= 25)}`);
    console.log(`deploy that recounts storage p50     ${ms(rebuildP50)}   target <= 1000 ms   ${verdict(rebuildP50 <= 1000)}`);
    console.log(`GET /workspaces/:id p50              ${ms(usageP50)}   target <= 50 ms   ${verdict(usageP50 <= 50)}`);
    console.log(`one workspace vs many, ${CONCURRENT} at once   ${ratio.toFixed(2)}x   target <= 2x   ${verdict(ratio <= 2)}`);
  } finally {
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
