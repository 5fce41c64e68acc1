/// <reference lib="dom" />
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, expectNoHorizontalScroll, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/** 30 people who joined (every third an admin) and 10 pending invitations, beside the owner. */
const JOINED = 30;
const INVITED = 10;
/** 35 tokens: the first 5 ran out ("Laptop …"), the rest are CI tokens. */
const TOKENS = 35;
const EXPIRED = 5;

/**
 * Issue 33, lists that scale, for the people of a company workspace: 41 members and
 * invitations and 35 API tokens at 375 px — the search narrows the rows and the total on
 * the server, the role, invitation and expiry filters, pages of 25 and back, the query
 * kept in the address across a reload, and a filter that matches nothing.
 */
describe('The members and tokens lists of a large workspace, in the browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  const errors: string[] = [];
  const url = (section: string) => `http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/${section}`;
  const caption = () => page.locator('table caption');
  const rows = () => page.locator('table tbody tr');
  const params = () => new URL(page.url()).searchParams;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Olga Owner' });
    await verifyEmail(t, owner);
    // Seeded in the database, as the projects list suite does: 40 sign-ups, invitations and acceptances through the API would be most of the suite's time.
    // Each joins after the owner, in number order, so the list (oldest invitation first) reads Person 01 … 30, then the invitations.
    await t.dataSource.query(
      `INSERT INTO users (id, email, name, password_hash, email_verified_at)
       SELECT 'usr_seed' || lpad(g::text, 20, '0'), 'person-' || lpad(g::text, 2, '0') || '@big-company.test', 'Person ' || lpad(g::text, 2, '0'), 'not-a-hash', now()
       FROM generate_series(1, ${JOINED}) g`,
    );
    await t.dataSource.query(
      `INSERT INTO workspace_members (id, workspace_id, user_id, email, role, status, invited_at, joined_at)
       SELECT 'mem_seed' || lpad(g::text, 20, '0'), $1,
              CASE WHEN g <= ${JOINED} THEN 'usr_seed' || lpad(g::text, 20, '0') END,
              CASE WHEN g <= ${JOINED} THEN 'person-' || lpad(g::text, 2, '0') ELSE 'invitee-' || lpad((g - ${JOINED})::text, 2, '0') END || '@big-company.test',
              CASE WHEN g <= ${JOINED} AND g % 3 = 0 THEN 'admin' ELSE 'viewer' END,
              CASE WHEN g <= ${JOINED} THEN 'active' ELSE 'invited' END,
              now() + g * interval '1 second',
              CASE WHEN g <= ${JOINED} THEN now() + g * interval '1 second' END
       FROM generate_series(1, ${JOINED + INVITED}) g`,
      [owner.workspaceId],
    );
    await t.dataSource.query(
      `INSERT INTO access_tokens (id, workspace_id, name, token_hash, prefix, scopes, expires_at, created_by, created_at)
       SELECT 'tok_seed' || lpad(g::text, 20, '0'), $1,
              CASE WHEN g <= ${EXPIRED} THEN 'Laptop ' ELSE 'CI deploy ' END || lpad(g::text, 2, '0'),
              md5('a' || g) || md5('b' || g), 'sk_live_' || lpad(g::text, 4, '0'), ARRAY['deploy'],
              CASE WHEN g <= ${EXPIRED} THEN now() - interval '1 day' END, $2, now() - (${TOKENS} - g) * interval '1 minute'
       FROM generate_series(1, ${TOKENS}) g`,
      [owner.workspaceId, owner.userId],
    );
    ({ context, page } = await phonePage(browser.browser, errors));
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  describe('members', () => {
    it('shows the first 25 of 41 people, oldest first, with their names', async () => {
      await page.goto(url('members'));
      await caption().getByText('1–25 of 41 people', { exact: true }).waitFor();
      expect(await rows().count()).toBe(25);
      expect(await rows().first().textContent()).toContain('Olga Owner');
      expect(await rows().nth(1).textContent()).toContain('Person 01');
      await expectAccessible(page, 'members-41');
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-members-41.png'), fullPage: true });
    });

    it('narrows the rows and the total as the search is typed, by email or name, and keeps it across a reload', async () => {
      await page.getByLabel('Search members').fill('person 1');
      await caption().getByText('1–10 of 10 people matching “person 1”').waitFor();
      expect(await rows().count()).toBe(10);
      expect(params().get('q')).toBe('person 1');
      await page.reload();
      await caption().getByText('1–10 of 10 people matching “person 1”').waitFor();
      expect(await page.getByLabel('Search members').inputValue()).toBe('person 1');
      await page.getByLabel('Search members').fill('invitee-0');
      await caption().getByText('1–9 of 9 people matching “invitee-0”').waitFor();
    });

    it('filters by role and by pending invitations', async () => {
      await page.getByLabel('Search members').fill('');
      await caption().getByText('1–25 of 41 people', { exact: true }).waitFor();
      await page.getByLabel('Filter by role').selectOption('admin');
      await caption().getByText('1–10 of 10 people', { exact: true }).waitFor();
      expect(params().get('role')).toBe('admin');
      expect((await rows().allTextContents()).every((row) => row.includes('admin'))).toBe(true);
      await page.getByLabel('Filter by role').selectOption('');
      await page.getByLabel('Show').selectOption('invited');
      await caption().getByText('1–10 of 10 people', { exact: true }).waitFor();
      expect((await rows().allTextContents()).every((row) => row.includes('invitee-'))).toBe(true);
      await page.reload();
      await caption().getByText('1–10 of 10 people', { exact: true }).waitFor();
      expect(await page.getByLabel('Show').inputValue()).toBe('invited');
      await page.getByLabel('Show').selectOption('');
      await caption().getByText('1–25 of 41 people', { exact: true }).waitFor();
    });

    it('keeps both of two filters changed before the list renders again', async () => {
      await page.getByLabel('Filter by role').selectOption('admin');
      await caption().getByText('1–10 of 10 people', { exact: true }).waitFor();
      // Both in one task, as a quick hand on a busy machine can: no render between them.
      const role = await page.getByLabel('Filter by role').elementHandle();
      const show = await page.getByLabel('Show').elementHandle();
      await page.evaluate(
        ([r, s]) => {
          for (const [select, value] of [
            [r, ''],
            [s, 'invited'],
          ] as const) {
            (select as HTMLSelectElement).value = value;
            select!.dispatchEvent(new Event('change', { bubbles: true }));
          }
        },
        [role, show],
      );
      // The caption reads the same for the 10 admins before as for the 10 invitees after: wait for the rows.
      await page.waitForFunction(() => {
        const shown = [...document.querySelectorAll('table tbody tr')];
        return shown.length === 10 && shown.every((row) => row.textContent?.includes('invitee-'));
      });
      await caption().getByText('1–10 of 10 people', { exact: true }).waitFor();
      expect(params().get('status')).toBe('invited');
      expect(params().has('role')).toBe(false);
      expect((await rows().allTextContents()).every((row) => row.includes('invitee-'))).toBe(true);
      await page.getByLabel('Show').selectOption('');
      await caption().getByText('1–25 of 41 people', { exact: true }).waitFor();
    });

    it('pages to the second page and back, each page in the address and in the history', async () => {
      const pager = page.getByRole('navigation', { name: 'Pages of members' });
      await pager.getByRole('button', { name: 'Next' }).click();
      await caption().getByText('26–41 of 41 people').waitFor();
      expect(params().get('page')).toBe('2');
      expect(await rows().count()).toBe(16);
      await expectNoHorizontalScroll(page, 'members-page-2');
      await page.goBack();
      await caption().getByText('1–25 of 41 people', { exact: true }).waitFor();
      expect(params().get('page')).toBeNull();
    });

    it('says when nothing matches, and clears the search', async () => {
      await page.getByLabel('Search members').fill('nobody-here');
      await page.getByText('No member or invitation matches “nobody-here”.').waitFor();
      await expectAccessible(page, 'members-no-match');
      await page.getByRole('button', { name: 'Clear search' }).click();
      await caption().getByText('1–25 of 41 people', { exact: true }).waitFor();
      expect(params().get('q')).toBeNull();
    });
  });

  describe('tokens', () => {
    it('shows the first 25 of 35 tokens, newest first', async () => {
      await page.goto(url('tokens'));
      await caption().getByText('1–25 of 35 tokens', { exact: true }).waitFor();
      expect(await rows().count()).toBe(25);
      expect(await rows().first().textContent()).toContain('CI deploy 35');
      await expectAccessible(page, 'tokens-35');
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-tokens-35.png'), fullPage: true });
    });

    it('narrows by name or by the visible prefix, and keeps the search across a reload', async () => {
      await page.getByLabel('Search tokens').fill('laptop');
      await caption().getByText('1–5 of 5 tokens matching “laptop”').waitFor();
      expect(params().get('q')).toBe('laptop');
      await page.reload();
      await caption().getByText('1–5 of 5 tokens matching “laptop”').waitFor();
      await page.getByLabel('Search tokens').fill('sk_live_0007');
      await caption().getByText('1–1 of 1 token matching “sk_live_0007”').waitFor();
      expect(await rows().first().textContent()).toContain('CI deploy 07');
    });

    it('filters expired tokens, each marked so', async () => {
      await page.getByLabel('Search tokens').fill('');
      await caption().getByText('1–25 of 35 tokens', { exact: true }).waitFor();
      await page.getByLabel('Show').selectOption('expired');
      await caption().getByText('1–5 of 5 tokens', { exact: true }).waitFor();
      expect(params().get('status')).toBe('expired');
      expect(await rows().locator('.badge.expired').count()).toBe(5);
      await page.getByLabel('Show').selectOption('active');
      await caption().getByText('1–25 of 30 tokens', { exact: true }).waitFor();
      expect(await rows().locator('.badge.expired').count()).toBe(0);
      await page.getByLabel('Show').selectOption('');
      await caption().getByText('1–25 of 35 tokens', { exact: true }).waitFor();
    });

    it('pages to the second page and back', async () => {
      const pager = page.getByRole('navigation', { name: 'Pages of tokens' });
      await pager.getByRole('button', { name: 'Next' }).click();
      await caption().getByText('26–35 of 35 tokens').waitFor();
      expect(params().get('page')).toBe('2');
      expect(await rows().last().textContent()).toContain('Laptop 01');
      await expectNoHorizontalScroll(page, 'tokens-page-2');
      await page.goBack();
      await caption().getByText('1–25 of 35 tokens', { exact: true }).waitFor();
    });

    it('says when nothing matches, and shows the whole list again', async () => {
      await page.getByLabel('Search tokens').fill('no-such-token');
      await page.getByText('No token matches “no-such-token”.').waitFor();
      await expectAccessible(page, 'tokens-no-match');
      await page.getByRole('button', { name: 'Clear search' }).click();
      await caption().getByText('1–25 of 35 tokens', { exact: true }).waitFor();
    });
  });
});
