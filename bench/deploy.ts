/**
 * npm run bench:deploy — deploys 1,000 files (4 MB) through the real HTTP API, then
 * re-deploys with 10 files changed, beside writing the same bytes straight to the
 * storage driver. Targets (issue 4): first deploy <= 3x the raw write; re-deploy
 * <= 0.2x the first deploy.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { blobKey } from '../src/blobs/blob-keys';
import { sha256Hex } from '../src/deployments/content';
import { LocalStorageDriver } from '../src/storage/local-storage.driver';
import { api, ms, startBenchApp } from './harness';

const FILES = 1000;
const FILE_BYTES = 4096;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = 8; // the deploy pipeline's upload concurrency

function makeFiles(): { path: string; content: string }[] {
  // Printable random text: 4 KB per file, 4 MB in all, all distinct.
  return Array.from({ length: FILES }, (_, i) => ({
    path: `site/section-${i % 20}/page-${i}.html`,
    content: randomBytes(FILE_BYTES * 0.75)
      .toString('base64')
      .slice(0, FILE_BYTES),
  }));
}

async function rawWrite(files: { content: string }[]): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'statichost-bench-raw-'));
  const driver = new LocalStorageDriver(dir);
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < files.length) {
        const bytes = Buffer.from(files[next++].content);
        await driver.put(blobKey(sha256Hex(bytes)), bytes);
      }
    }),
  );
  const elapsed = performance.now() - start;
  await rm(dir, { recursive: true, force: true });
  return elapsed;
}

async function main(): Promise<void> {
  const app = await startBenchApp();
  const auth = { Authorization: `Bearer ${app.token}` };
  const rows: { raw: number; first: number; redeploy: number }[] = [];
  try {
    // One warm-up deploy so JIT and connection pools are not measured.
    await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench-warmup', files: makeFiles().slice(0, 50) }, auth);
    for (let run = 0; run < RUNS; run++) {
      const files = makeFiles();
      const raw = await rawWrite(files);
      const slug = `bench-deploy-${run}`;
      let t0 = performance.now();
      await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: slug, files }, auth);
      const first = performance.now() - t0;
      for (let i = 0; i < 10; i++) files[i * 97] = { ...files[i * 97], content: randomBytes(FILE_BYTES).toString('base64').slice(0, FILE_BYTES) };
      t0 = performance.now();
      const res = await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: slug, files }, auth);
      const redeploy = performance.now() - t0;
      if (res.version !== 2) throw new Error(`unexpected version ${String(res.version)}`);
      rows.push({ raw, first, redeploy });
    }
  } finally {
    await app.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const raw = median(rows.map((r) => r.raw));
  const first = median(rows.map((r) => r.first));
  const redeploy = median(rows.map((r) => r.redeploy));
  console.log(`\nbench:deploy — ${FILES} files x ${FILE_BYTES} B (${(FILES * FILE_BYTES) / 1e6} MB), ${RUNS} runs, medians, local driver`);
  console.table(rows.map((r, i) => ({ run: i + 1, 'raw write': ms(r.raw), 'first deploy': ms(r.first), 're-deploy (10 changed)': ms(r.redeploy) })));
  const firstRatio = first / raw;
  const redeployRatio = redeploy / first;
  console.log(`raw write to the driver        ${ms(raw)}`);
  console.log(`first deploy (HTTP, JSON)      ${ms(first)}   = ${firstRatio.toFixed(2)}x raw    target <= 3x   ${firstRatio <= 3 ? 'MET' : 'MISSED'}`);
  console.log(
    `re-deploy with 10 changed      ${ms(redeploy)}   = ${redeployRatio.toFixed(2)}x first  target <= 0.2x ${redeployRatio <= 0.2 ? 'MET' : 'MISSED'}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
