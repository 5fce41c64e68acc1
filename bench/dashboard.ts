/**
 * npm run bench:dashboard — the dashboard's budgets (issue 13), measured in headless
 * Chromium against the real app (the test browser: Debian's Chromium, else the npm one):
 * - initial JavaScript, gzip (what index.html loads before anything renders): <= 200 KB;
 * - the projects page of a workspace with 200 projects, from navigation to the table
 *   rendered and the create button usable: <= 1 s (median of BENCH_RUNS);
 * - a 1,000-file folder (4 KB each) deployed from the page (hashing in the browser,
 *   digest first) vs the SDK's deploy the CLI runs (collect, hash, deployDigestFirst),
 *   each with new content: page <= 1.5x the CLI.
 * Figures, never assertions; run on a quiet machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';

import { collectFiles, deployDigestFirst, hashFiles, StatichostClient } from '../src/sdk';
import { launchBrowser } from '../test/helpers/browser';
import { api, ms, startBenchApp } from './harness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

const ROOT = join(__dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PROJECTS = 200;
const FILES = 1000;
const DEPLOY_RUNS = Number(process.env.BENCH_DEPLOY_RUNS ?? 3);
const FILE_BYTES = 4096;

async function initialJsGzip(): Promise<{ files: number; raw: number; gzip: number }> {
  const html = await readFile(join(ROOT, 'dist', 'web', 'index.html'), 'utf8');
  const srcs = [...html.matchAll(/<script[^>]+src="([^"]+)"|<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
  let raw = 0;
  let gzip = 0;
  for (const src of srcs) {
    const bytes = await readFile(join(ROOT, 'dist', 'web', src.replace(/^\/app\//, '')));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: srcs.length, raw, gzip };
}

async function writeSite(dir: string): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    await mkdir(join(dir, `section-${i % 20}`), { recursive: true });
    await writeFile(join(dir, `section-${i % 20}`, `page-${i}.html`), randomBytes(FILE_BYTES).toString('base64').slice(0, FILE_BYTES));
  }
  await writeFile(join(dir, 'index.html'), `<h1>${randomBytes(8).toString('hex')}</h1>`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  buildWeb({ quiet: true });
  const js = await initialJsGzip();
  console.log(`initial JavaScript: ${js.files} file(s), ${(js.raw / 1024).toFixed(1)} KB raw, ${(js.gzip / 1024).toFixed(1)} KB gzip (budget <= 200 KB)`);

  const app = await startBenchApp();
  const browser = await launchBrowser();
  const dirs: string[] = [];
  try {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.baseUrl}/app/sign-in`);
    // A cookie-mode session in this browser, as signing in on the page gives.
    const session = (await page.evaluate(async () => {
      const res = await fetch('/auth/register', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Session-Mode': 'cookie' },
        body: JSON.stringify({ email: `dash-bench-${Date.now()}@example.com`, password: 'bench password 1', name: 'Dash Bench' }),
      });
      return res.json();
    })) as { accessToken: string; workspace: { id: string } };
    const headers = { Authorization: `Bearer ${session.accessToken}`, 'X-Workspace-Id': session.workspace.id };
    for (let i = 0; i < PROJECTS; i++) await api(app.baseUrl, 'POST', '/projects', { name: `Project ${i}` }, headers);

    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const t0 = performance.now();
      await page.goto(`${app.baseUrl}/app/w/${session.workspace.id}/projects`);
      await page.getByRole('row', { name: new RegExp(`Project ${PROJECTS - 1}\\b`) }).waitFor();
      await page.getByRole('button', { name: 'Create project' }).isEnabled();
      times.push(performance.now() - t0);
    }
    console.log(
      `projects page with ${PROJECTS} projects, navigation to interactive: median ${ms(median(times))} of ${RUNS} (${times.map((t) => t.toFixed(0)).join(', ')} ms; budget <= 1000 ms)`,
    );

    // 1,000 files: the SDK deploy the CLI runs, then the page, each with content the workspace
    // lacks; DEPLOY_RUNS pairs, alternating, compared by their medians (one pair varies by a
    // third on this machine: the server's deploy step dominates both sides).
    const client = new StatichostClient({ baseUrl: app.baseUrl, token: app.token });
    const cliTimes: number[] = [];
    const pageTimes: number[] = [];
    for (let run = 0; run < DEPLOY_RUNS; run++) {
      const cliDir = await mkdtemp(join(tmpdir(), 'statichost-dash-cli-'));
      const pageDir = await mkdtemp(join(tmpdir(), 'statichost-dash-page-'));
      dirs.push(cliDir, pageDir);
      await writeSite(cliDir);
      await writeSite(pageDir);
      const c0 = performance.now();
      const { files } = await collectFiles(cliDir);
      await deployDigestFirst(client, { project: `bench-cli-deploy-${run}`, files: await hashFiles(files) });
      cliTimes.push(performance.now() - c0);

      const project = (await api(app.baseUrl, 'POST', '/projects', { name: `bench page deploy ${run}` }, headers)) as { id: string };
      await page.goto(`${app.baseUrl}/app/w/${session.workspace.id}/projects/${project.id}/deploy`);
      await page.locator('#folder-input').setInputFiles(pageDir);
      await page.getByText(`${FILES + 1} files`).waitFor();
      const p0 = performance.now();
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'is live at' }).waitFor({ timeout: 120_000 });
      pageTimes.push(performance.now() - p0);
    }
    const list = (xs: number[]) => xs.map((t) => t.toFixed(0)).join(', ');
    console.log(
      `${FILES + 1}-file folder deploy (new content), median of ${DEPLOY_RUNS}: page ${ms(median(pageTimes))} (${list(pageTimes)} ms), SDK/CLI ${ms(median(cliTimes))} (${list(cliTimes)} ms), ratio ${(median(pageTimes) / median(cliTimes)).toFixed(2)}x (budget <= 1.5x; the page's time starts at the click, hashing included; choosing the folder is not counted)`,
    );
  } finally {
    await browser.close();
    await app.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
