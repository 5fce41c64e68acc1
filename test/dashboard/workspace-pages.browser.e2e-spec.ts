/// <reference lib="dom" />
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, confirmInDialog, expectAccessible, goToSection, launchBrowser, phonePage } from '../helpers/browser';
import { cookieFrom, emailGatedProject, submitEmail } from '../helpers/email-gate';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * The dashboard's workspace pages (issue 13, part 2) in a real browser at 375 px:
 * password reset through the real outbox and SMTP, a 402 that offers the upgrade,
 * billing, API tokens, members (the API's rules as it states them), leads, analytics
 * and a drag-and-drop deploy. axe on every page; screenshots in test/artifacts.
 */

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
}

/** Sends the outbox until it is empty, as test/mail does. */
async function sendMail(t: TestApp): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const report = await t.app.get(OutboxService).runOnce();
    if (report.ran && report.delivered === 0 && report.failed === 0) return;
  }
}

// The free plan allows one project here, so a second one meets the 402.
const PLANS = { free: { projects: 1, deploymentsPerMonth: null, storageBytes: null, maxTtl: null } };
const LEADS = 27; // more than one page of 25

describe('The dashboard’s workspace pages in a real browser (e2e)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let owner: UserSession;
  let projectId: string;
  const errors: string[] = [];
  const newPassword = 'a brand new passphrase';
  const base = () => `http://127.0.0.1:${t.port}/app`;
  const ws = () => `${base()}/w/${owner.workspaceId}`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    smtp = await startSmtpServer();
    // TRUST_PROXY: each captured lead comes from its own (forwarded) address, under the per-address limit.
    t = await startTestApp({ env: { SMTP_URL: smtp.url, PLANS_JSON: JSON.stringify(PLANS), TRUST_PROXY: 'true' } });
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Bea Billing' });
    await verifyEmail(t, owner);
    projectId = await emailGatedProject(t, owner, 'gated-leads', 'Gated Leads');
    const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read'] })).token;
    await deploySite(t, token, 'gated-leads', [{ path: 'index.html', content: '<h1>hi</h1>' }]);
    const captured = [];
    for (let i = 0; i < LEADS; i++) captured.push(await submitEmail(t, 'gated-leads', `${i === 0 ? 'ada.lovelace' : `visitor${i}`}@example.test`));
    expect(captured.map((r) => r.status).filter((s) => s !== 303)).toEqual([]);
    // Traffic for the charts, by a visitor past the gate: page views and a 404, then written out as the flush job would.
    const visitor = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0', Cookie: cookieFrom(captured[0]) };
    for (let i = 0; i < 3; i++) await site(t, 'gated-leads').get('/').set(visitor).expect(200);
    await site(t, 'gated-leads').get('/missing.png').set(visitor).expect(404);
    await t.app.get(AnalyticsRecorder).flush();

    ({ page } = await phonePage(browser.browser, errors, { acceptDownloads: true }));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  it('resets the password from the mailed link (outbox → SMTP → link), then signs in with the new one', async () => {
    await page.goto(`${base()}/reset-password`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByRole('button', { name: 'Send the reset link' }).click();
    await page.getByRole('status').waitFor();
    await sendMail(t);
    const mail = smtp.received.find((m) => m.rcptTo.includes(owner.email) && /\/app\/reset-password\?token=/.test(m.parsed.text ?? ''));
    expect(mail).toBeDefined();
    // The mailed link, opened on this test app's address.
    const link = new URL(/https?:\/\/\S+\/app\/reset-password\?token=[^\s"]+/.exec(mail!.parsed.text!)![0]);
    await page.goto(`${base()}/reset-password${link.search}`);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await expectAccessible(page, 'reset-confirm');
    await page.getByLabel('New password').fill(newPassword);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText('Your password is changed').waitFor();
    await shot(page, 'reset-done');
    // The old password is refused with the API's message; the new one signs in.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    owner = { ...owner, ...(await t.http().post('/auth/login').send({ email: owner.email, password: newPassword }).expect(200)).body, password: newPassword };
  });

  it('a 402 (over the plan’s project quota) offers the upgrade, which opens billing', async () => {
    await page.getByLabel('Project name').fill('One Too Many');
    await page.getByRole('button', { name: 'Create project' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Over your plan’s limit').waitFor();
    await alert.getByRole('link', { name: 'Upgrade the plan' }).click();
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    expect(page.url()).toBe(`${ws()}/billing`);
  });

  it('billing: usage against each quota, the plan table, a payment method, activate, cancel', async () => {
    await page.getByRole('table', { name: /What each plan allows/ }).waitFor();
    expect(await page.getByRole('meter', { name: 'Projects' }).getAttribute('value')).toBe('1');
    expect(await page.getByText('1 of 1 (at the limit)').count()).toBe(1);
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(expect.arrayContaining(['free (yours)', 'pro', 'team']));
    await page.getByText('No payment method saved').waitFor();
    await expectAccessible(page, 'billing');
    // Activating without a payment method: the API's own 402, and no upgrade link to this same page.
    await page.getByRole('button', { name: 'Activate' }).click();
    const refused = page.getByRole('form', { name: 'Activate a paid plan' }).getByRole('alert');
    await refused.waitFor();
    const api = await t
      .http()
      .post('/billing/activate-plan')
      .set(bearer(owner.accessToken))
      .send({ workspaceId: owner.workspaceId, tier: 'pro', interval: 'month' });
    expect(api.status).toBe(402);
    expect(await refused.textContent()).toContain(api.body.message);
    expect(await refused.getByRole('link').count()).toBe(0);

    await page.getByLabel('Payment method id').fill('pm_card_visa');
    await page.getByRole('button', { name: 'Save payment method' }).click();
    await page.getByText('visa ending 4242').first().waitFor();
    await page.getByLabel('Plan', { exact: true }).selectOption('pro');
    await page.getByLabel('Billed every').selectOption('year');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('The pro plan is active.').waitFor();
    await page.getByText(/on the pro plan, billed every year; it renews on/).waitFor();
    await shot(page, 'billing');
    await page.getByRole('button', { name: 'Cancel the pro plan' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel the plan' }).click();
    await page.getByText(/Cancelled: the plan runs until/).waitFor();
    expect(
      (await t.http().get('/billing/subscription').query({ workspaceId: owner.workspaceId }).set(bearer(owner.accessToken)).expect(200)).body.cancelAtPeriodEnd,
    ).toBe(true);
  });

  it('API tokens: created with scopes, project and expiry; the secret once, with a copy button; works; revoked after confirming', async () => {
    await goToSection(page, 'API tokens');
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByText('No API tokens yet').or(page.getByRole('table')).first().waitFor();
    await page.getByLabel('Token name').fill('CI deploys');
    await page.getByLabel(/^read/).check();
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Gated Leads' });
    const expiry = new Date(Date.now() + 30 * 86_400_000);
    const day = `${expiry.getFullYear()}-${String(expiry.getMonth() + 1).padStart(2, '0')}-${String(expiry.getDate()).padStart(2, '0')}`;
    await page.getByLabel('Expires on').fill(day);
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.locator('.secret-value code');
    await secret.waitFor();
    const token = (await secret.textContent())!;
    expect(token).toMatch(/^sk_live_/);
    await page.getByRole('button', { name: /^Copy the token/ }).waitFor();
    await expectAccessible(page, 'tokens-secret');
    await shot(page, 'tokens');
    // The token is what the page said: bound to the project, with those scopes.
    const me = await t.http().get('/v1/me').set(bearer(token)).expect(200);
    expect(me.body).toMatchObject({ projectId, scopes: ['deploy', 'read'] });
    const row = page.getByRole('row', { name: /CI deploys/ });
    expect(await row.textContent()).toContain(token.slice(0, 12));
    expect(await row.textContent()).toContain(String(expiry.getFullYear()));
    // Once dismissed, the secret is gone for good.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByText(token).waitFor({ state: 'detached' });
    expect(await page.getByText(token).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke CI deploys' }).click();
    await confirmInDialog(page, 'Revoke token');
    await page.getByRole('row', { name: /CI deploys/ }).waitFor({ state: 'detached' });
    expect((await t.http().get('/v1/me').set(bearer(token))).status).toBe(401);
  });

  it('members: invite with a role; the last owner cannot leave, in the API’s words', async () => {
    await goToSection(page, 'Members');
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByLabel('Email to invite').fill('new.colleague@example.test');
    // The invite form's role, not the list's role filter below it.
    await page.getByRole('form', { name: 'Invite someone' }).getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByText('new.colleague@example.test is invited as viewer').waitFor();
    await page
      .getByRole('row', { name: /new\.colleague@example\.test/ })
      .getByText('invited')
      .waitFor();
    await expectAccessible(page, 'members');
    await shot(page, 'members');

    await page.getByRole('button', { name: 'Leave the workspace' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Leave' }).click();
    const refusal = page.getByRole('dialog').getByRole('alert');
    await refusal.waitFor();
    const [me] = (await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(asUser(owner)).expect(200)).body.data.filter(
      (m: { userId: string }) => m.userId === owner.userId,
    );
    const api = await t.http().delete(`/workspaces/${owner.workspaceId}/members/${me.id}`).set(asUser(owner));
    expect(api.status).toBe(409);
    expect(await refusal.textContent()).toContain(api.body.message);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    // Withdrawing the invitation works.
    await page.getByRole('button', { name: 'Withdraw the invitation of new.colleague@example.test' }).click();
    await confirmInDialog(page, 'Withdraw');
    await page.getByRole('row', { name: /new\.colleague/ }).waitFor({ state: 'detached' });
  });

  it('members: the two-factor policy switch shows the click while it saves, and the saved value again when saving fails', async () => {
    // Still on Members, from the test before.
    const policy = page.getByRole('checkbox', { name: 'Require two-factor sign-in' });
    await policy.waitFor();
    expect(await policy.isChecked()).toBe(false);
    // The save is held, then refused: nothing changes on the server.
    let seen!: () => void;
    const requested = new Promise<void>((done) => (seen = done));
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    let answered: Promise<void> | undefined;
    const path = `**/workspaces/${owner.workspaceId}`;
    await page.route(path, (route) => {
      if (route.request().method() !== 'PATCH') return route.fallback();
      answered = held.then(() =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ statusCode: 409, error: 'Conflict', message: 'The policy could not be saved just now', code: 'conflict' }),
        }),
      );
      seen();
      return answered;
    });
    try {
      await policy.click();
      await requested;
      expect(await policy.isChecked()).toBe(true);
      release();
      await page.getByText('The policy could not be saved just now').waitFor();
      expect(await policy.isChecked()).toBe(false);
    } finally {
      // Answered before the route goes, even when an assertion failed: never let the save through.
      release();
      await answered;
      await page.unroute(path);
    }
    const workspace = await t.http().get(`/workspaces/${owner.workspaceId}`).set(asUser(owner)).expect(200);
    expect(workspace.body.requireTwoFactor).toBe(false);
  });

  it('members: a viewer is refused with the API’s 403 where they acted', async () => {
    const viewer = await registerUser(t, { name: 'Vic Viewer' });
    await addMember(t, owner, viewer, 'viewer');
    const other = await browser.browser.newContext({ viewport: { width: 375, height: 800 } });
    try {
      const p = await other.newPage();
      await p.goto(`${base()}/sign-in?next=${encodeURIComponent(`/w/${owner.workspaceId}/members`)}`);
      await p.getByLabel('Email').fill(viewer.email);
      await p.getByLabel('Password').fill(viewer.password);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { name: 'Members' }).waitFor();
      await p.getByRole('row', { name: new RegExp(owner.email.replace(/[.]/g, '\\.')) }).waitFor();
      await p.getByLabel('Email to invite').fill('someone@example.test');
      await p.getByRole('button', { name: 'Invite' }).click();
      const refusal = p.getByRole('form', { name: 'Invite someone' }).getByRole('alert');
      await refusal.waitFor();
      const api = await t
        .http()
        .post(`/workspaces/${owner.workspaceId}/members`)
        .set(asUser(viewer, owner.workspaceId))
        .send({ email: 'someone@example.test', role: 'viewer' });
      expect(api.status).toBe(403);
      expect(await refusal.textContent()).toContain(api.body.message);
    } finally {
      await other.close();
    }
  });

  it('leads: workspace-wide with paging, a debounced search, CSV download and erasing one', async () => {
    await goToSection(page, 'Leads');
    await page.getByRole('heading', { name: 'Leads' }).waitFor();
    await page.getByText(`${LEADS} leads`).waitFor();
    await page.getByText('Page 1 of 2').waitFor();
    expect(await page.getByRole('row', { name: /Gated Leads/ }).count()).toBe(25);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    await expectAccessible(page, 'leads');

    // Typed one key at a time: one request after the pause, not one per key.
    const asked: string[] = [];
    const listen = (r: { url(): string }) => {
      if (/\/projects\/gate\/leads\?/.test(r.url())) asked.push(r.url());
    };
    page.on('request', listen);
    await page.getByLabel('Search by email').pressSequentially('lovelace', { delay: 40 });
    await page.getByText('1 lead matching “lovelace”').waitFor();
    page.off('request', listen);
    expect(asked.length).toBeLessThanOrEqual(2);
    expect(asked.at(-1)).toContain('search=lovelace');
    expect(asked.at(-1)).toContain('page=1');
    await shot(page, 'leads');

    // One project's leads: the CSV of what the search shows.
    await page.getByLabel('Project').selectOption({ label: 'Gated Leads' });
    await page.getByLabel('Search by email').fill('visitor1');
    await page.getByText(/leads? matching “visitor1”/).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download these as CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^leads-gated-leads-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^id,email,capturedAt/);
    expect(csv).toContain('visitor1@example.test');
    expect(csv).toContain('visitor19@example.test');
    expect(csv).not.toContain('ada.lovelace');

    await page.getByRole('button', { name: 'Erase visitor1@example.test' }).click();
    await expectAccessible(page, 'erase-dialog');
    await confirmInDialog(page, 'Erase the lead');
    await page.getByRole('row', { name: /^visitor1@example\.test/ }).waitFor({ state: 'detached' });
    const left = await t.http().get(`/projects/${projectId}/gate/leads`).query({ search: 'visitor1@' }).set(asUser(owner)).expect(200);
    expect(left.body.meta.total).toBe(0);
  });

  it('a project’s leads tab and its analytics charts (uPlot, loaded with the page)', async () => {
    await page.goto(`${ws()}/projects/${projectId}/leads`);
    await page.getByText(`${LEADS - 1} leads`).waitFor();
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Analytics' }).waitFor();
    const views = page.locator('.totals div').filter({ hasText: 'Page views' }).locator('dd');
    expect(await views.textContent()).toBe('3');
    await page.locator('.chart canvas').first().waitFor();
    expect(await page.locator('.chart canvas').count()).toBe(2);
    await page.getByRole('table', { name: 'Not found' }).getByText('/missing.png').waitFor();
    await page.getByRole('heading', { name: 'Gate (email)' }).waitFor();
    await expectAccessible(page, 'analytics');
    await shot(page, 'analytics');
    await page.getByLabel('Period').selectOption({ label: 'Last 48 hours, by hour' });
    await page.getByText('(hourly buckets)').waitFor();
  });

  it('deploys by dropping files on the drop zone', async () => {
    await page.goto(`${ws()}/projects/${projectId}/deploy`);
    await page.getByRole('heading', { name: 'Deploy a folder' }).waitFor();
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['<h1 id="dropped">Dropped</h1>'], 'index.html', { type: 'text/html' }));
      dt.items.add(new File(['body{}'], 'site.css', { type: 'text/css' }));
      return dt;
    });
    await page.locator('.dropzone').dispatchEvent('dragover', { dataTransfer });
    await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer });
    await page.getByText('2 files').waitFor();
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Version 2 is live' }).waitFor();
    const [latest] = (await t.http().get(`/projects/${projectId}/deployments`).set(asUser(owner)).expect(200)).body.data;
    expect(latest).toMatchObject({ version: 2, fileCount: 2, status: 'live' });
  });

  it('names the workspace on its own pages only: the projects list sends X-Workspace-Id, the invitations after it do not', async () => {
    const path = (pathname: string) => (request: { url(): string }) => new URL(request.url()).pathname === pathname;
    const projects = page.waitForRequest(path('/projects'));
    await page.goto(`${ws()}/projects`);
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    expect((await projects).headers()['x-workspace-id']).toBe(owner.workspaceId);
    // Invitations are the user's, in no workspace: the one just left must not go along.
    const invitations = page.waitForRequest(path('/invitations'));
    await goToSection(page, 'Invitations');
    await page.getByRole('heading', { name: 'Invitations', exact: true }).waitFor();
    expect((await invitations).headers()['x-workspace-id']).toBeUndefined();
  });
});
