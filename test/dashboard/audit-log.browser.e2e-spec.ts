/// <reference lib="dom" />
import { readFile } from 'node:fs/promises';

import type { BrowserContext, Page } from 'playwright-core';

import { AuditLogService } from '../../src/audit/audit-log.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, goToSection, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { bearer, registerUser, type UserSession } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

const FIREFOX = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0';

/**
 * The audit log page and the Security page's password and sessions sections (issue 32) in a
 * real browser at 375 px: the entries, a filter, the CSV download, the chain's check before
 * and after a row is edited in PostgreSQL; a session seen and ended, the password changed.
 */
describe('The dashboard’s audit log and sessions in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  const errors: string[] = [];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Audrey Audit' });
    ({ context, page } = await phonePage(browser.browser, errors, { acceptDownloads: true }));
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
    // The log starts with exactly the three entries below: sign-up's `workspace.created` and
    // this sign-in's `user.signed_in` are cleared with the chain's head.
    await t.dataSource.query('DELETE FROM audit_log WHERE workspace_id = $1', [owner.workspaceId]);
    await t.dataSource.query('DELETE FROM audit_heads WHERE workspace_id = $1', [owner.workspaceId]);
    const audit = t.app.get(AuditLogService);
    const actor = { type: 'user' as const, id: owner.userId };
    for (const change of [
      { action: 'project.created', target: { type: 'project', id: 'proj_docs', label: 'docs-site' }, changes: ['name'] },
      { action: 'token.created', target: { type: 'token', id: 'tok_ci', label: 'ci deploys' }, changes: ['name', 'scopes'] },
      { action: 'token.revoked', target: { type: 'token', id: 'tok_ci', label: '=cmd|calc' } },
    ])
      await t.dataSource.transaction((m) => audit.record(m, { ...change, actor, workspaceId: owner.workspaceId }));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  it('shows the entries, filters them, downloads them as CSV, and checks the chain before and after a row is edited', async () => {
    await goToSection(page, 'Audit log');
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    const table = page.getByRole('region', { name: 'Audit log entries' });
    await table.getByText('token.revoked').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(3);
    await expectAccessible(page, 'audit-log');

    await page.getByLabel('Action').fill('token.');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('2 entries').waitFor();
    expect(await table.getByText('project.created').count()).toBe(0);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(",token.revoked,token,tok_ci,'=cmd|calc,");
    expect(lines[2]).toContain(',token.created,');

    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await page.getByText('The chain is intact: 3 entries checked.').waitFor();

    await t.dataSource.query(`UPDATE audit_log SET target_label = 'innocent' WHERE workspace_id = $1 AND seq = 3`, [owner.workspaceId]);
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await page.getByText('The chain is broken at entry 3 (hash_mismatch)').waitFor();
    await expectAccessible(page, 'audit-log-broken');
  });

  it('lists the sessions on the Security page, ends another one, and changes the password', async () => {
    const login = await t.http().post('/auth/login').set('User-Agent', FIREFOX).send({ email: owner.email, password: owner.password });
    expect(login.status).toBe(200);
    await goToSection(page, 'Security');
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    const sessions = page.getByRole('region', { name: 'Your sessions' });
    await sessions.getByText('(this session)').waitFor();
    await sessions.getByRole('cell', { name: 'Firefox', exact: true }).waitFor();
    await expectAccessible(page, 'security');

    await sessions.getByRole('button', { name: /^Sign out Firefox/ }).click();
    await page.getByRole('button', { name: 'Sign out the session', exact: true }).click();
    await sessions.getByRole('cell', { name: 'Firefox', exact: true }).waitFor({ state: 'detached' });
    expect((await t.http().get('/users/me').set(bearer(login.body.accessToken))).status).toBe(401);

    await page.getByLabel('Current password').fill(owner.password);
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other sessions were signed out.').waitFor();
    expect((await t.http().post('/auth/login').send({ email: owner.email, password: 'a brand new passphrase' })).status).toBe(200);
    const [changed] = await t.dataSource.query(`SELECT user_agent, ip FROM audit_log WHERE workspace_id = $1 AND action = 'user.password_changed'`, [
      owner.workspaceId,
    ]);
    expect(changed).toEqual({ user_agent: expect.stringMatching(/Chrom/), ip: '127.0.0.0/24' });
  });
});
