/// <reference lib="dom" />
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, expectNoHorizontalScroll, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { createApiToken, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { deploySite } from '../helpers/sites';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

const PROJECTS = 200;
/** A 63-character slug, the longest a DNS label takes: its address cannot fit a phone's row. */
const LONG_SLUG = 'a-very-long-project-address-that-does-not-fit-on-any-phone-0199';
// The free plan's project limit, shown above the list where it bites.
const PLANS = { free: { projects: 250, deploymentsPerMonth: null, storageBytes: null, maxTtl: null } };

/**
 * Issue 33, lists that scale: a workspace with 200 projects on the projects page at 375 px —
 * the search narrows the rows and the total on the server, sort and status filter, pages
 * of 25 to page 8 and back, the query kept in the address, and a long address cut with
 * an ellipsis, whole in its tooltip and on the clipboard.
 */
describe('The projects list with 200 projects, in the browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  const errors: string[] = [];
  const projectsUrl = () => `http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/projects`;
  const caption = () => page.locator('table caption');
  const rows = () => page.locator('table tbody tr');
  const firstName = async () => (await rows().first().getByRole('link').first().textContent())?.trim();
  const params = () => new URL(page.url()).searchParams;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp({ env: { PLANS_JSON: JSON.stringify(PLANS) } });
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Lisa Lists' });
    await verifyEmail(t, owner);
    // Seeded in the database, as bench/dashboard.ts does: 200 creations through the API would be the suite's whole time.
    // "Project 001" is the oldest, "Project 200" the newest; the 199th has the long address.
    await t.dataSource.query(
      `INSERT INTO projects (id, workspace_id, name, slug, created_at)
       SELECT 'proj_list' || lpad(g::text, 20, '0'), $1, 'Project ' || lpad(g::text, 3, '0'),
              CASE WHEN g = 199 THEN $2 ELSE 'list-project-' || lpad(g::text, 3, '0') END,
              now() - (${PROJECTS} - g) * interval '1 minute'
       FROM generate_series(1, ${PROJECTS}) g`,
      [owner.workspaceId, LONG_SLUG],
    );
    const token = (await createApiToken(t, owner, { scopes: ['deploy'] })).token;
    for (const slug of ['list-project-007', 'list-project-150', LONG_SLUG]) {
      await deploySite(t, token, slug, [{ path: 'index.html', content: `<h1>${slug}</h1>` }]);
    }
    ({ context, page } = await phonePage(browser.browser, errors));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${t.port}` });
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  it('shows the first 25 of 200, newest first, with the free plan’s count; nothing repeated on every row', async () => {
    await page.goto(projectsUrl());
    await caption().getByText('1–25 of 200 projects').waitFor();
    expect(await rows().count()).toBe(25);
    expect(await firstName()).toBe('Project 200');
    await page.getByText('200 of 250 projects on the free plan').waitFor();
    // A project never deployed is a quiet "Not deployed", not a pill; a deployed one shows its version's age.
    expect(await page.locator('table .badge').count()).toBe(0);
    const deployed = page.getByRole('row', { name: /Project 199/ });
    expect(await deployed.textContent()).toMatch(/v1 · (now|\d+ (seconds?|minutes?) ago)/);
    await expectAccessible(page, 'projects-200');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-projects-200.png'), fullPage: true });
  });

  it('narrows the rows and the total as the search is typed, and keeps it in the address across a reload', async () => {
    await page.getByLabel('Search projects').fill('project 15');
    await caption().getByText('1–10 of 10 projects matching “project 15”').waitFor();
    expect(await rows().count()).toBe(10);
    expect(params().get('q')).toBe('project 15');
    await page.reload();
    await caption().getByText('1–10 of 10 projects matching “project 15”').waitFor();
    expect(await page.getByLabel('Search projects').inputValue()).toBe('project 15');
  });

  it('sorts by name both ways within the search', async () => {
    await page.getByLabel('Sort by').selectOption('-name');
    await eventually(async () => expect(await firstName()).toBe('Project 159'));
    expect(params().get('sort')).toBe('-name');
    await page.getByLabel('Sort by').selectOption('name');
    await eventually(async () => expect(await firstName()).toBe('Project 150'));
  });

  it('filters by status: live and not deployed', async () => {
    await page.getByLabel('Search projects').fill('');
    await caption().getByText('1–25 of 200 projects', { exact: true }).waitFor();
    await page.getByLabel('Show').selectOption('live');
    await caption().getByText('1–3 of 3 projects').waitFor();
    expect(params().get('status')).toBe('live');
    expect((await rows().allTextContents()).every((row) => /v1 ·/.test(row))).toBe(true);
    await page.getByLabel('Show').selectOption('none');
    await caption().getByText('1–25 of 197 projects').waitFor();
    expect(await rows().first().textContent()).toContain('Not deployed');
    await page.getByLabel('Show').selectOption('');
    await caption().getByText('1–25 of 200 projects', { exact: true }).waitFor();
  });

  it('pages to page 8 and back, each page in the address and in the history', async () => {
    await page.getByLabel('Sort by').selectOption('name');
    await eventually(async () => expect(await firstName()).toBe('Project 001'));
    const pager = page.getByRole('navigation', { name: 'Pages of projects' });
    for (let n = 2; n <= 8; n++) {
      await pager.getByRole('button', { name: 'Next' }).click();
      await caption()
        .getByText(`${(n - 1) * 25 + 1}–${n * 25} of 200 projects`)
        .waitFor();
    }
    expect(params().get('page')).toBe('8');
    expect(await firstName()).toBe('Project 176');
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await page.goBack();
    await caption().getByText('151–175 of 200 projects').waitFor();
    await pager.getByRole('button', { name: 'Previous' }).click();
    await caption().getByText('126–150 of 200 projects').waitFor();
    // A new search starts again at page 1.
    await page.getByLabel('Search projects').fill('project 1');
    await caption()
      .getByText(/^1–25 of 100 projects/)
      .waitFor();
    expect(params().get('page')).toBeNull();
  });

  it('says when nothing matches and clears the search', async () => {
    await page.getByLabel('Search projects').fill('no such project');
    await page.getByText('No project matches “no such project”.').waitFor();
    await expectAccessible(page, 'projects-no-match');
    await page.getByRole('button', { name: 'Clear search' }).click();
    await caption().getByText('1–25 of 200 projects', { exact: true }).waitFor();
    expect(await page.getByLabel('Search projects').inputValue()).toBe('');
    expect(params().get('q')).toBeNull();
  });

  it('cuts a long address with an ellipsis at 375 px, whole in its tooltip on keyboard focus, and copies it whole', async () => {
    await page.getByLabel('Search projects').fill('a-very-long');
    await caption().getByText('1–1 of 1 project matching “a-very-long”').waitFor();
    const url = `http://${LONG_SLUG}.localhost:${t.port}`;
    const address = page.getByRole('row', { name: /Project 199/ }).getByRole('link', { name: url.replace('http://', '') });
    const cut = await address.evaluate((el) => ({
      cut: el.scrollWidth > el.clientWidth,
      overflow: getComputedStyle(el).textOverflow,
      lines: el.getClientRects().length,
    }));
    expect(cut).toEqual({ cut: true, overflow: 'ellipsis', lines: 1 });
    await expectNoHorizontalScroll(page, 'projects-long-address');

    // From the project's name by keyboard: the next stop is the address, and its tooltip opens on focus.
    await page.getByRole('link', { name: 'Project 199' }).focus();
    await page.keyboard.press('Tab');
    expect(await address.evaluate((el) => el === document.activeElement)).toBe(true);
    const tooltip = page.getByRole('tooltip');
    await tooltip.waitFor();
    expect(await tooltip.textContent()).toBe(url);
    await expectAccessible(page, 'projects-tooltip');
    await page.keyboard.press('Escape');
    await tooltip.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: `Copy: ${url}` }).click();
    await page
      .getByRole('button', { name: `Copy: ${url}` })
      .getByText('Copied')
      .waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  });

  it('shows a workspace without projects what a project is and where to start', async () => {
    const newcomer = await registerUser(t, { name: 'Nina New' });
    await verifyEmail(t, newcomer);
    const fresh = await phonePage(browser.browser, errors);
    try {
      await signInThroughDashboard(fresh.page, `http://127.0.0.1:${t.port}`, newcomer);
      await fresh.page.goto(`http://127.0.0.1:${t.port}/app/w/${newcomer.workspaceId}/projects`);
      await fresh.page.getByText('No projects yet.').waitFor();
      expect(await fresh.page.getByRole('link', { name: 'see the ways to publish a first site' }).getAttribute('href')).toBe(
        `/app/w/${newcomer.workspaceId}/get-started`,
      );
      await fresh.page.getByText('0 of 250 projects on the free plan').waitFor();
      await expectAccessible(fresh.page, 'projects-empty');
    } finally {
      await fresh.context.close();
    }
  });
});
