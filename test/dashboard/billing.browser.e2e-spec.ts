/// <reference lib="dom" />
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { FakeStripe } from '../billing/fake-stripe';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { bearer, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

const GiB = 1024 ** 3;

/**
 * The billing page with the Stripe provider (issue 31) in a real browser at 375 px:
 * prices per interval, Upgrade followed to the Stripe stand-in's Checkout page and back,
 * Manage billing followed to its portal page, the usage meters with bandwidth and the
 * spend-cap switch, the past_due banner. axe on the page.
 */
describe('The dashboard’s billing page with Stripe in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  const stripe = new FakeStripe();
  const errors: string[] = [];
  const billing = () => `http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/billing`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    const { port } = await stripe.start();
    // API_HOSTS: the URLs Checkout and the portal return to are on the address the browser signed in at.
    t = await startTestApp({ env: { ...stripe.env(port), API_HOSTS: '127.0.0.1', PLANS_JSON: undefined } });
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Paula Payer' });
    await verifyEmail(t, owner);
    ({ context, page } = await phonePage(browser.browser, errors));
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await stripe.stop();
  });
  afterEach(() => expect(errors).toEqual([]));

  const priceRow = () => page.getByRole('row', { name: /^Price/ });

  it('shows each plan’s price per interval and what it allows, the meters, and no card form', async () => {
    await page.goto(billing());
    await page.getByRole('table', { name: /What each plan allows/ }).waitFor();
    expect(await priceRow().getByRole('cell').allTextContents()).toEqual(['free', '$19.00 a month', '$99.00 a month']);
    await page.getByRole('radio', { name: 'year' }).check();
    expect(await priceRow().getByRole('cell').allTextContents()).toEqual(['free', '$190.00 a year', '$990.00 a year']);
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(expect.arrayContaining(['free (yours)', 'pro', 'team']));
    expect(
      await page
        .getByRole('row', { name: /^Projects/ })
        .getByRole('cell')
        .allTextContents(),
    ).toEqual(['3', '20', 'unlimited']);
    for (const name of ['Projects', 'Deployments this month', 'Storage', 'Build minutes this month']) await page.getByRole('meter', { name }).waitFor();
    // With Stripe, cards are entered on Stripe's pages only.
    expect(await page.getByLabel('Payment method id').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Activate' }).count()).toBe(0);
    await expectAccessible(page, 'billing-stripe');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-billing-stripe.png'), fullPage: true });
  });

  it('Upgrade goes to the stand-in’s Checkout page for that tier and interval, which leads back to the billing page', async () => {
    await page.goto(billing());
    await page.getByRole('radio', { name: 'year' }).check();
    await page.getByRole('button', { name: 'Upgrade to team, billed every year' }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/cs_test_fake\d+$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('heading', { name: `Stand-in Checkout ${id}` }).waitFor();
    expect(stripe.checkoutSessions.get(id)?.form).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': 'price_teamYear',
      client_reference_id: owner.workspaceId,
      success_url: `${billing()}?checkout=success`,
    });
    await page.getByRole('link', { name: 'Back' }).click();
    await page.waitForURL(`${billing()}?checkout=canceled`);
    await page.getByText('Checkout was left before paying').waitFor();
  });

  it('Manage billing goes to the stand-in’s portal page, which returns to the billing page', async () => {
    await page.goto(billing());
    await page.getByRole('button', { name: 'Manage billing' }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/portal\/bps_fake\d+$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect(stripe.portalSessions.get(id)?.form.return_url).toBe(billing());
    await page.getByRole('link', { name: 'Back' }).click();
    await page.waitForURL(billing());
    await page.getByRole('heading', { name: 'Billing', exact: true }).waitFor();
  });

  it('meters bandwidth with its percentage, and the spend-cap switch turns the cap on (needs the metering branch)', async () => {
    const month = new Date().toISOString().slice(0, 8) + '01';
    // 25 GiB of the free plan's 100 GB a month.
    await t.dataSource.query(
      `INSERT INTO workspace_monthly_usage (workspace_id, month, bandwidth_bytes) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, month) DO UPDATE SET bandwidth_bytes = EXCLUDED.bandwidth_bytes`,
      [owner.workspaceId, month, 25 * GiB],
    );
    await page.goto(billing());
    const meter = page.getByRole('meter', { name: 'Bandwidth this month' });
    await meter.waitFor();
    expect(await meter.getAttribute('value')).toBe(String(25 * GiB));
    await page.getByText('25 GB of 100 GB, 25 %').waitFor();
    const cap = page.getByRole('switch', { name: 'Pause the sites at the bandwidth limit' });
    expect(await cap.isChecked()).toBe(false);
    await cap.check();
    await expectAccessible(page, 'billing-spend-cap');
    const saved = async () =>
      (await t.http().get('/billing/spend-cap').query({ workspaceId: owner.workspaceId }).set(bearer(owner.accessToken)).expect(200)).body.pauseSitesAtLimit;
    for (let i = 0; i < 50 && !(await saved()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await saved()).toBe(true);
  });

  it('a failed renewal shows the past_due banner with the grace end and a link to the portal (needs the lifecycle branch)', async () => {
    await t
      .http()
      .post('/billing/payment-methods')
      .set(bearer(owner.accessToken))
      .send({ workspaceId: owner.workspaceId, paymentMethodToken: 'pm_1Renewing' })
      .expect(201);
    await t
      .http()
      .post('/billing/activate-plan')
      .set(bearer(owner.accessToken))
      .send({ workspaceId: owner.workspaceId, tier: 'pro', interval: 'month' })
      .expect(200);
    await t.dataSource.query(`UPDATE subscriptions SET status = 'past_due', past_due_since = now() WHERE workspace_id = $1`, [owner.workspaceId]);
    const view = (await t.http().get('/billing/subscription').query({ workspaceId: owner.workspaceId }).set(bearer(owner.accessToken)).expect(200)).body;
    expect(view).toMatchObject({ status: 'past_due', graceEndsAt: expect.any(String) });
    await page.goto(billing());
    const banner = page.getByRole('alert').filter({ hasText: 'Payment failed.' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('The pro plan is kept until');
    // Paying already: the plan changes in the portal, not with a second Checkout.
    expect(await page.getByRole('button', { name: /^Upgrade to/ }).count()).toBe(0);
    await expectAccessible(page, 'billing-past-due');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-billing-past-due.png'), fullPage: true });
    await banner.getByRole('button', { name: 'Update the payment method' }).click();
    await page.waitForURL(/\/portal\/bps_fake\d+$/);
  });
});
