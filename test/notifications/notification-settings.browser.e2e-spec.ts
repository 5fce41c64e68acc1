/// <reference lib="dom" />
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { NotificationsService } from '../../src/notifications/notifications.service';
import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, goToSection, launchBrowser, phonePage } from '../helpers/browser';
import { addMember, bearer, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * The account page's mail notifications (issue 30) in a real browser at 375 px: one form
 * per workspace, saved through PUT /users/me/notifications; and the unsubscribe link's
 * confirm page, whose button unsubscribes. axe on both.
 */
describe('Notification settings in the dashboard (e2e, browser)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let owner: UserSession;
  let member: UserSession;
  const errors: string[] = [];
  const base = () => `http://127.0.0.1:${t.port}/app`;
  const settings = async () =>
    (await t.http().get('/users/me/notifications').set(bearer(member.accessToken)).expect(200)).body.workspaces as {
      workspaceId: string;
      buildFailed: boolean;
      domainFailed: boolean;
      digest: string;
    }[];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Nora Owner' });
    member = await registerUser(t, { name: 'Milo Member' });
    await verifyEmail(t, owner);
    await addMember(t, owner, member, 'viewer');
    await t.app.get(OutboxService).runOnce();
    ({ page } = await phonePage(browser.browser, errors));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  it('the account page sets one workspace’s notifications and leaves the other’s as they were', async () => {
    await page.goto(`${base()}/sign-in`);
    await page.getByLabel('Email').fill(member.email);
    await page.getByLabel('Password').fill(member.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await goToSection(page, 'Account');
    await page.getByRole('heading', { name: 'Mail notifications' }).waitFor();
    const shared = page.getByRole('form', { name: /Nora Owner's workspace/ });
    await shared.waitFor();
    await expectAccessible(page, 'account-notifications');

    await shared.getByLabel('A production build fails').check();
    await shared.getByLabel('Once a day').check();
    await shared.getByRole('button', { name: 'Save' }).click();
    await shared.getByRole('status').getByText('Saved.').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-account-notifications.png'), fullPage: true });

    const saved = await settings();
    expect(saved.find((w) => w.workspaceId === owner.workspaceId)).toMatchObject({ buildFailed: true, domainFailed: false, digest: 'daily' });
    expect(saved.find((w) => w.workspaceId === member.workspaceId)).toMatchObject({ buildFailed: false, domainFailed: false, digest: 'off' });

    // What was saved is what the page shows after a reload.
    await page.reload();
    const again = page.getByRole('form', { name: /Nora Owner's workspace/ });
    await expect(again.getByLabel('A production build fails').isChecked()).resolves.toBe(true);
    await expect(again.getByLabel('Once a day').isChecked()).resolves.toBe(true);
  });

  it('the unsubscribe link shows a button (nothing changes on opening it), and the button unsubscribes', async () => {
    // The link a digest mail would carry (test/notifications/notifications.e2e-spec.ts reads it from real mail).
    const url = t.app.get(NotificationsService).unsubscribeLink(member.userId, owner.workspaceId, 'digest').url;
    const path = new URL(url).pathname + new URL(url).search;
    const unauthenticated = await browser.browser.newContext({ viewport: { width: 375, height: 800 } });
    const visitor = await unauthenticated.newPage();
    await visitor.goto(`http://127.0.0.1:${t.port}${path}`);
    await visitor.getByRole('heading', { name: 'Unsubscribe' }).waitFor();
    await expectAccessible(visitor, 'unsubscribe-confirm');
    expect((await settings()).find((w) => w.workspaceId === owner.workspaceId)).toMatchObject({ digest: 'daily' });

    await visitor.getByRole('button', { name: 'Unsubscribe' }).click();
    await visitor.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    expect((await settings()).find((w) => w.workspaceId === owner.workspaceId)).toMatchObject({ buildFailed: true, digest: 'off' });
    await unauthenticated.close();
  });
});
