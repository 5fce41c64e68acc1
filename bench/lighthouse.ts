/**
 * npm run bench:lighthouse — Lighthouse (desktop) on every page of the dashboard, signed in,
 * over the seeded workspace the visual suite shows (test/helpers/dashboard-tour.ts), in the
 * test browser (Debian's Chromium, else @sparticuz/chromium's). Goals (issue 33):
 * Accessibility 100, Best Practices >= 95, Performance >= 90. Prints a table of the three
 * scores per page and the audits that keep a page under a goal, and writes
 * docs/lighthouse.json. Figures, never assertions; run on a quiet machine (Performance is
 * simulated throttling over measured traces, so a loaded machine lowers it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from 'playwright-core';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { ADDRESS_LIMITS_OFF, NO_FREE_QUOTAS, type TestApp } from '../test/helpers/app';
import { CHROMIUM_ARGS, chromiumExecutable } from '../test/helpers/browser';
import { seedTour, TOUR_APP_ENV, TOUR_OWNER } from '../test/helpers/dashboard-tour';
import { freePort, startBenchApp } from './harness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

const ROOT = join(__dirname, '..');
const GOALS = { performance: 90, accessibility: 100, 'best-practices': 95 } as const;
type Category = keyof typeof GOALS;
const CATEGORIES = Object.keys(GOALS) as Category[];

interface PageScores {
  name: string;
  path: string;
  scores: Record<Category, number>;
  /** The audits that cost points in a category under its goal: `category: audit id (score) title`. */
  failing: string[];
}

interface LighthouseAudit {
  id: string;
  title: string;
  score: number | null;
  scoreDisplayMode: string;
  displayValue?: string;
}
interface LighthouseResult {
  finalDisplayedUrl: string;
  runtimeError?: { code: string; message: string };
  categories: Record<Category, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, LighthouseAudit>;
}

function failingAudits(lhr: LighthouseResult, category: Category): string[] {
  return lhr.categories[category].auditRefs
    .filter((ref) => ref.weight > 0)
    .map((ref) => lhr.audits[ref.id])
    .filter((a) => a && a.score !== null && a.score < (category === 'performance' ? 0.9 : 1) && a.scoreDisplayMode !== 'informative')
    .map((a) => `${category}: ${a.id} (${a.score}${a.displayValue ? `, ${a.displayValue}` : ''}) ${a.title}`);
}

async function main(): Promise<void> {
  buildWeb({ quiet: true });
  // The tour's build runs in the process runner, which NODE_ENV=production refuses; nothing
  // the dashboard is served with depends on NODE_ENV (as bench:builds does).
  const app = await startBenchApp({
    NODE_ENV: 'development',
    ...TOUR_APP_ENV,
    ...ADDRESS_LIMITS_OFF,
    OUTBOX_INTERVAL_SECONDS: '0',
    PLANS_JSON: NO_FREE_QUOTAS,
  });
  // The tour seeds through the test helpers, which want a TestApp: the bench app's own server, database and config.
  const asTestApp = {
    ...app,
    server: app.app.getHttpServer(),
    dataSource: app.app.get(DataSource),
    databaseUrl: '',
    logs: [],
    http: () => request(app.app.getHttpServer()),
  } as unknown as TestApp;
  const tour = await seedTour(asTestApp);
  const { default: lighthouse, desktopConfig } = await import('lighthouse');
  const userDataDir = await mkdtemp(join(tmpdir(), 'statichost-lighthouse-'));
  const port = await freePort();
  // A persistent context is the browser's default one, where Lighthouse opens its tabs:
  // the session cookie set by signing in here is theirs too (launch() would sign in inside
  // an incognito context that Lighthouse never sees).
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: (await chromiumExecutable()).path,
    headless: true,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${port}`],
  });
  const results: PageScores[] = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const version = context.browser()?.version() ?? 'unknown';
    /**
     * A new session before each page: Lighthouse leaves a page mid-flight, and a refresh
     * answered but not yet stored by the browser makes the next page present a rotated
     * refresh token, which the API takes as theft and ends the session. The signing-in tab
     * then waits on about:blank so its own refreshes cannot race Lighthouse's.
     */
    const signIn = async () => {
      await page.goto(`${app.baseUrl}/app/sign-in`);
      await page.getByLabel('Email').fill(TOUR_OWNER.email);
      await page.getByLabel('Password').fill(TOUR_OWNER.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.goto('about:blank');
    };

    for (const { name, path } of tour.pages) {
      const url = `${app.baseUrl}/app${path}`;
      await signIn();
      const run = await lighthouse(
        url,
        { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] },
        desktopConfig as Parameters<typeof lighthouse>[2],
      );
      const lhr = run?.lhr as unknown as LighthouseResult | undefined;
      if (!lhr || lhr.runtimeError) throw new Error(`${name}: Lighthouse failed: ${lhr?.runtimeError?.message ?? 'no result'}`);
      // A page that sent Lighthouse to the sign-in form measured that form, not the page.
      if (new URL(lhr.finalDisplayedUrl).pathname !== new URL(url).pathname)
        throw new Error(`${name}: Lighthouse ended on ${lhr.finalDisplayedUrl}, not ${url}`);
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((lhr.categories[c].score ?? 0) * 100)])) as Record<Category, number>;
      const failing = CATEGORIES.filter((c) => scores[c] < GOALS[c]).flatMap((c) => failingAudits(lhr, c));
      results.push({
        name,
        path: path
          .replace(/ws_[A-Za-z0-9_-]+/, ':workspaceId')
          .replace(/proj_[A-Za-z0-9_-]+/, ':projectId')
          .replace(/(dep|bld|build)_[A-Za-z0-9_-]+/, ':id'),
        scores,
        failing,
      });
      console.log(
        `${name.padEnd(18)} performance ${String(scores.performance).padStart(3)}  accessibility ${String(scores.accessibility).padStart(3)}  best practices ${String(scores['best-practices']).padStart(3)}`,
      );
    }

    const under = results.filter((r) => r.failing.length);
    console.log(`\n| page | Performance | Accessibility | Best Practices |\n|---|---|---|---|`);
    for (const r of results) console.log(`| ${r.name} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores['best-practices']} |`);
    console.log(`\ngoals: Accessibility ${GOALS.accessibility}, Best Practices >= ${GOALS['best-practices']}, Performance >= ${GOALS.performance} (desktop)`);
    if (under.length === 0) console.log('every page meets every goal');
    for (const r of under) console.log(`\n${r.name} is under a goal:\n  ${r.failing.join('\n  ')}`);

    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const report = {
      date: new Date().toISOString(),
      commit,
      lighthouse: (JSON.parse(await readFile(join(ROOT, 'node_modules', 'lighthouse', 'package.json'), 'utf8')) as { version: string }).version,
      chromium: version,
      goals: GOALS,
      pages: results,
    };
    await writeFile(join(ROOT, 'docs', 'lighthouse.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log('\nwritten: docs/lighthouse.json');
  } finally {
    await context.close();
    await rm(userDataDir, { recursive: true, force: true });
    await tour.close();
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
