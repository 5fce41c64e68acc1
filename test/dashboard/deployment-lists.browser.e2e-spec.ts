/// <reference lib="dom" />
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { LeadsService } from '../../src/leads/leads.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, confirmInDialog, expectAccessible, expectNoHorizontalScroll, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { emailGatedProject } from '../helpers/email-gate';
import { eventually } from '../helpers/eventually';
import { createApiToken, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { deploySite } from '../helpers/sites';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/** Long enough that its preview address (`<slug>--<version>.<SITES_DOMAIN>`) cannot fit a phone's row. */
const LONG_SLUG = 'a-long-project-name-for-the-deployment-list';
const DEPLOYMENTS = 60;
const LEADS = 32;
const LONG_EMAIL = 'a.very.long.address.that.cannot.fit.a.phone@subscribers.example.com';

/**
 * Issue 33, lists that scale, for a project's history and its leads: 60 deployments
 * filtered by status, searched by version, paged to page 3 and back with the browser's
 * back button, the query kept in the address across a reload; 32 leads searched and
 * paged; at 375 px a long preview address cut, whole in its tooltip and on the clipboard.
 */
describe('The deployments and leads lists, in the browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  let projectId: string;
  let gatedId: string;
  const errors: string[] = [];
  const origin = () => `http://127.0.0.1:${t.port}`;
  const deploymentsUrl = () => `${origin()}/app/w/${owner.workspaceId}/projects/${projectId}`;
  const caption = () => page.locator('table caption');
  const rows = () => page.locator('table tbody tr');
  const firstVersion = async () => (await rows().first().getByRole('link').first().textContent())?.trim();
  const params = () => new URL(page.url()).searchParams;
  const expectTableFits = async () => {
    const wrap = await page.locator('table').evaluate((table) => ({ table: table.scrollWidth, box: table.parentElement!.clientWidth }));
    expect(wrap.table).toBeLessThanOrEqual(wrap.box);
  };

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Dora Deploys' });
    await verifyEmail(t, owner);
    const token = (await createApiToken(t, owner, { scopes: ['deploy'] })).token;
    // v1 through the API makes the project; v2–v59 seeded in the database (59 deploys through the API would be the suite's
    // whole time), v1–v10 expired; v60 through the API again, so the live one is a real deploy.
    const first = await deploySite(t, token, LONG_SLUG, [{ path: 'index.html', content: '<h1>v1</h1>' }]);
    projectId = (await t.dataSource.query('SELECT project_id FROM deployments WHERE id = $1', [first.id]))[0].project_id;
    await t.dataSource.query(
      `INSERT INTO deployments (id, project_id, workspace_id, version, status, size_bytes, file_count, ttl, expires_at, created_by, created_at)
       SELECT 'dep_' || substr(md5(g::text), 1, 24), $1, $2, g, 'archived', 1024, 1, '7d', now() + interval '7 days', 'usr_seed', now() - (60 - g) * interval '1 minute'
       FROM generate_series(2, ${DEPLOYMENTS - 1}) g`,
      [projectId, owner.workspaceId],
    );
    await t.dataSource.query(`UPDATE deployments SET status = 'expired' WHERE project_id = $1 AND version <= 10`, [projectId]);
    await t.dataSource.query('UPDATE projects SET last_version = $2 WHERE id = $1', [projectId, DEPLOYMENTS - 1]);
    expect((await deploySite(t, token, LONG_SLUG, [{ path: 'index.html', content: '<h1>v60</h1>' }])).version).toBe(DEPLOYMENTS);

    // Leads captured by the service the email gate calls (stored encrypted, searchable), without the gate's per-visitor rate limit.
    gatedId = await emailGatedProject(t, owner, 'gated-list', 'Gated list');
    for (let n = 1; n <= LEADS; n++) {
      const email = n === 7 ? LONG_EMAIL : `reader${String(n).padStart(2, '0')}@example.com`;
      expect(await t.app.get(LeadsService).capture(gatedId, email)).toMatchObject({ outcome: 'captured' });
    }

    ({ context, page } = await phonePage(browser.browser, errors));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: origin() });
    await signInThroughDashboard(page, origin(), owner);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  describe('deployments', () => {
    it('shows the newest 25 of 60 with the range in the caption', async () => {
      await page.goto(deploymentsUrl());
      await caption().getByText('1–25 of 60 deployments').waitFor();
      expect(await rows().count()).toBe(25);
      expect(await firstVersion()).toBe('v60');
      await expectAccessible(page, 'deployments-60');
      await expectNoHorizontalScroll(page, 'deployments-60');
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-deployments-60.png'), fullPage: true });
      // The row's actions fit the phone's width: no sideways scroll inside the table either.
      await expectTableFits();
    });

    it('filters by status, in the address', async () => {
      await page.getByLabel('Status').selectOption('expired');
      await caption().getByText('1–10 of 10 deployments').waitFor();
      expect(params().get('status')).toBe('expired');
      expect(await firstVersion()).toBe('v10');
      expect((await rows().locator('.badge.expired').allTextContents()).length).toBe(10);
      await page.getByLabel('Status').selectOption('live');
      await caption().getByText('1–1 of 1 deployment').waitFor();
      expect(await firstVersion()).toBe('v60');
      await page.getByLabel('Status').selectOption('');
      await caption().getByText('1–25 of 60 deployments', { exact: true }).waitFor();
      expect(params().get('status')).toBeNull();
    });

    it('finds a version as 12 or v12, and keeps the search across a reload', async () => {
      await page.getByLabel('Search deployments').fill('v12');
      await caption().getByText('1–1 of 1 deployment matching “v12”').waitFor();
      expect(await firstVersion()).toBe('v12');
      expect(params().get('q')).toBe('v12');
      await page.reload();
      await caption().getByText('1–1 of 1 deployment matching “v12”').waitFor();
      expect(await page.getByLabel('Search deployments').inputValue()).toBe('v12');
      await page.getByLabel('Search deployments').fill('33');
      await caption().getByText('1–1 of 1 deployment matching “33”').waitFor();
      expect(await firstVersion()).toBe('v33');
    });

    it('says when nothing matches, and clears the search', async () => {
      await page.getByLabel('Search deployments').fill('v999');
      await page.getByText('No deployment matches “v999”.').waitFor();
      await expectAccessible(page, 'deployments-no-match');
      await page.getByRole('button', { name: 'Clear search' }).click();
      await caption().getByText('1–25 of 60 deployments', { exact: true }).waitFor();
      expect(await page.getByLabel('Search deployments').inputValue()).toBe('');
    });

    it('pages to page 3 and back with the back button; the page survives a reload', async () => {
      const pager = page.getByRole('navigation', { name: 'Pages of deployments' });
      await pager.getByRole('button', { name: 'Older' }).click();
      await caption().getByText('26–50 of 60 deployments').waitFor();
      await pager.getByRole('button', { name: 'Older' }).click();
      await caption().getByText('51–60 of 60 deployments').waitFor();
      expect(params().get('page')).toBe('3');
      expect(await firstVersion()).toBe('v10');
      expect(await pager.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
      await page.reload();
      await caption().getByText('51–60 of 60 deployments').waitFor();
      await page.goBack();
      await caption().getByText('26–50 of 60 deployments').waitFor();
      expect(params().get('page')).toBe('2');
      expect(await firstVersion()).toBe('v35');
      await page.goBack();
      await caption().getByText('1–25 of 60 deployments', { exact: true }).waitFor();
      expect(params().get('page')).toBeNull();
    });

    it('cuts a long preview address at 375 px, whole in its tooltip on keyboard focus, and copies it whole', async () => {
      const url = `http://${LONG_SLUG}--59.localhost:${t.port}`;
      const row = page.getByRole('row', { name: /^v59/ });
      const address = row.getByRole('link', { name: url.replace('http://', '') });
      expect(
        await address.evaluate((el) => ({
          cut: el.scrollWidth > el.clientWidth,
          overflow: getComputedStyle(el).textOverflow,
          lines: el.getClientRects().length,
        })),
      ).toEqual({
        cut: true,
        overflow: 'ellipsis',
        lines: 1,
      });
      await expectNoHorizontalScroll(page, 'deployments-long-preview');
      // From the version's link by keyboard: the next stop is the preview address, and its tooltip opens on focus.
      await row.getByRole('link', { name: 'v59' }).focus();
      await page.keyboard.press('Tab');
      expect(await address.evaluate((el) => el === document.activeElement)).toBe(true);
      const tooltip = page.getByRole('tooltip');
      await tooltip.waitFor();
      expect(await tooltip.textContent()).toBe(url);
      await expectAccessible(page, 'deployments-tooltip');
      await page.keyboard.press('Escape');
      await tooltip.waitFor({ state: 'hidden' });
      await row.getByRole('button', { name: `Copy: ${url}` }).click();
      await row
        .getByRole('button', { name: `Copy: ${url}` })
        .getByText('Copied')
        .waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
      // An expired version's address answers 410: nothing to open or copy.
      await page.goto(`${deploymentsUrl()}?status=expired`);
      await caption().getByText('1–10 of 10 deployments').waitFor();
      expect(await rows().getByRole('button', { name: /^Copy/ }).count()).toBe(0);
    });

    it('still promotes a version from a filtered page, after its confirm dialog', async () => {
      await page.goto(`${deploymentsUrl()}?q=v59`);
      await caption().getByText('1–1 of 1 deployment matching “v59”').waitFor();
      await page.getByRole('button', { name: 'Promote v59' }).click();
      await page.getByRole('dialog').getByText('Make v59 live?').waitFor();
      await confirmInDialog(page, 'Promote');
      await eventually(async () => expect(await rows().first().locator('.badge').textContent()).toBe('live'));
      expect(params().get('q')).toBe('v59');
      await page.goto(`${deploymentsUrl()}?status=live`);
      await caption().getByText('1–1 of 1 deployment').waitFor();
      expect(await firstVersion()).toBe('v59');
    });
  });

  describe('leads', () => {
    const leadsUrl = () => `${origin()}/app/w/${owner.workspaceId}/projects/${gatedId}/leads`;
    const emails = async () => (await rows().locator('td:first-child').allTextContents()).map((s) => s.replace(/Copy.*$/, '').trim());

    it('shows 25 of 32 leads, pages to the rest and back, in the address', async () => {
      await page.goto(leadsUrl());
      await caption().getByText(`1–25 of ${LEADS} leads`).waitFor();
      expect(await rows().count()).toBe(25);
      await expectAccessible(page, 'leads-32');
      await expectNoHorizontalScroll(page, 'leads-32');
      const pager = page.getByRole('navigation', { name: 'Pages of leads' });
      await pager.getByRole('button', { name: 'Next' }).click();
      await caption().getByText(`26–${LEADS} of ${LEADS} leads`).waitFor();
      expect(params().get('page')).toBe('2');
      await page.reload();
      await caption().getByText(`26–${LEADS} of ${LEADS} leads`).waitFor();
      await page.goBack();
      await caption().getByText(`1–25 of ${LEADS} leads`).waitFor();
    });

    it('searches by any part of the address, kept in the address, with the CSV of what is listed', async () => {
      await page.getByLabel('Search by email').fill('reader1');
      await caption().getByText('1–10 of 10 leads matching “reader1”').waitFor();
      expect(params().get('q')).toBe('reader1');
      expect((await emails()).every((e) => e.startsWith('reader1'))).toBe(true);
      await page.reload();
      await caption().getByText('1–10 of 10 leads matching “reader1”').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download these as CSV' }).click()]);
      const csv = await new Promise<string>((resolve, reject) => {
        void download.createReadStream().then((stream) => {
          let text = '';
          stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
          stream.on('end', () => resolve(text));
          stream.on('error', reject);
        }, reject);
      });
      expect(csv).toContain('reader10@example.com');
      expect(csv).not.toContain('reader09@example.com');
    });

    it('says when nothing matches, and clears the search', async () => {
      await page.getByLabel('Search by email').fill('nobody@nowhere');
      await page.getByText('No lead matches “nobody@nowhere”.').waitFor();
      await page.getByRole('button', { name: 'Clear search' }).click();
      await caption().getByText(`1–25 of ${LEADS} leads`).waitFor();
    });

    it('cuts a long email at 375 px and copies it whole', async () => {
      const email = LONG_EMAIL;
      await page.getByLabel('Search by email').fill('a.very.long');
      await caption().getByText('1–1 of 1 lead matching “a.very.long”').waitFor();
      const cell = rows().first().locator('.truncate-text');
      expect(await cell.evaluate((el) => ({ cut: el.scrollWidth > el.clientWidth, lines: el.getClientRects().length }))).toEqual({ cut: true, lines: 1 });
      await expectNoHorizontalScroll(page, 'leads-long-email');
      await expectTableFits();
      await rows()
        .first()
        .getByRole('button', { name: `Copy: ${email}` })
        .click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(email);
    });

    it('keeps the workspace page’s project filter and search in the address', async () => {
      await page.goto(`${origin()}/app/w/${owner.workspaceId}/leads`);
      await caption().getByText(`1–25 of ${LEADS} leads`).waitFor();
      await page.getByLabel('Project').selectOption(gatedId);
      await page.getByLabel('Search by email').fill('reader3');
      await caption().getByText('1–3 of 3 leads matching “reader3”').waitFor();
      expect(params().get('project')).toBe(gatedId);
      await page.reload();
      await caption().getByText('1–3 of 3 leads matching “reader3”').waitFor();
      expect(await page.getByLabel('Project').inputValue()).toBe(gatedId);
      await expectAccessible(page, 'workspace-leads-search');
      await expectNoHorizontalScroll(page, 'workspace-leads-search');
      await expectTableFits();
    });
  });
});
