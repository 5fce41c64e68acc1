/// <reference lib="dom" />
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, goToSection, landingHeading, launchBrowser, phonePage, signInThroughDashboard, signOut } from '../helpers/browser';
import { registerUser, type UserSession } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * "Confirm it's you" in the dashboard, in a real browser at 375 px: a change of the
 * account's TOTP or passkeys in a session signed in more than 15 minutes ago is refused
 * (403 reauthentication_required); the dashboard asks for what a sign-in of the account
 * asks (the password, or the passkey when that is the account's second factor) and sends
 * the change again, or, cancelled, shows the refusal where the person acted. A session is
 * made old by moving its `authenticated_at` back, as time would.
 */
describe('Confirming it is you before changing sign-in methods, in the dashboard (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const errors: string[] = [];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    origin = `http://localhost:${t.port}`;
    browser = await launchBrowser();
    ({ context, page } = await phonePage(browser.browser, errors));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  /** Every session of the user signed in 16 minutes ago. */
  const age = (user: UserSession) =>
    t.dataSource.query(`UPDATE auth_sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [user.userId]);
  const confirmDialog = () => page.getByRole('dialog', { name: 'Confirm it’s you' });

  describe('with a password', () => {
    let user: UserSession;
    beforeAll(async () => {
      user = await registerUser(t, { name: 'Olga Old' });
    });

    it('asks for the password, says when it is wrong, and once confirmed starts the TOTP enrolment asked for', async () => {
      await signInThroughDashboard(page, origin, user);
      await age(user);
      await goToSection(page, 'Security');
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();

      const dialog = confirmDialog();
      await dialog.getByText('Turning TOTP on needs a recent sign-in.').waitFor();
      await expectAccessible(page, 'reauthenticate-dialog');
      await dialog.getByLabel('Password').fill('not my password');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await dialog.getByRole('alert').getByText('password: not your password').waitFor();

      await dialog.getByLabel('Password').fill(user.password);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('img', { name: 'QR code of the authenticator secret' }).waitFor();
      const [entry] = await t.dataSource.query(`SELECT changes FROM audit_log WHERE workspace_id = $1 AND action = 'user.reauthenticated'`, [user.workspaceId]);
      expect(entry).toEqual({ changes: ['password'] });
    });

    it('on the Account page: the name changes at once; a new email asks to confirm, then mails its link', async () => {
      await age(user);
      await page.goto(`${origin}/app/account`);
      const nameForm = page.getByRole('form', { name: 'Your name' });
      await nameForm.getByLabel('Name').fill('Olga Older');
      await nameForm.getByRole('button', { name: 'Save name' }).click();
      await page.getByText('Name saved').waitFor();
      expect(await confirmDialog().count()).toBe(0);
      expect((await t.dataSource.query('SELECT name FROM users WHERE id = $1', [user.userId]))[0].name).toBe('Olga Older');

      const email = `olga-${Date.now()}@example.com`;
      const emailForm = page.getByRole('form', { name: 'Your email' });
      await emailForm.getByLabel('New email').fill(email);
      await emailForm.getByRole('button', { name: 'Change email' }).click();
      const dialog = confirmDialog();
      await dialog.getByText('Changing your email needs a recent sign-in.').waitFor();
      await expectAccessible(page, 'account-email-confirm');
      await dialog.getByLabel('Password').fill(user.password);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await dialog.waitFor({ state: 'detached' });
      await emailForm.getByRole('status').getByText(`We sent a link to ${email}.`).waitFor();
      const links = await t.dataSource.query(`SELECT 1 FROM account_tokens WHERE user_id = $1 AND purpose = 'verify_email' AND email = $2`, [
        user.userId,
        email,
      ]);
      expect(links).toHaveLength(1);
    });

    it('on the API tokens page: a new token asks to confirm, then shows its secret once', async () => {
      await age(user);
      await page.goto(`${origin}/app/w/${user.workspaceId}/tokens`);
      await page.getByLabel('Token name').fill('Laptop deploys');
      await page.getByRole('button', { name: 'Create token' }).click();
      const dialog = confirmDialog();
      await dialog.getByText('Creating an API token needs a recent sign-in.').waitFor();
      await dialog.getByLabel('Password').fill(user.password);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await dialog.waitFor({ state: 'detached' });
      const secret = (await page.locator('.secret-value code').textContent())!;
      expect(secret).toMatch(/^sk_live_/);
      expect(await t.dataSource.query(`SELECT name FROM access_tokens WHERE workspace_id = $1`, [user.workspaceId])).toEqual([{ name: 'Laptop deploys' }]);
      await page.getByRole('button', { name: 'I have copied it' }).click();
    });

    it('cancelled, the change is not made and the page says why', async () => {
      await age(user);
      await goToSection(page, 'Security');
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      await confirmDialog().getByRole('button', { name: 'Cancel' }).click();
      await confirmDialog().waitFor({ state: 'detached' });
      await page.getByRole('alert').filter({ hasText: 'Turning TOTP on needs a sign-in of the last 15 minutes' }).waitFor();
      const [totp] = await t.dataSource.query('SELECT enabled_at FROM totp_credentials WHERE user_id = $1', [user.userId]);
      expect(totp.enabled_at).toBeNull();
      await signOut(page);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    });
  });

  describe('with a passkey as the second factor', () => {
    let user: UserSession;
    let cdp: CDPSession;

    beforeAll(async () => {
      user = await registerUser(t, { name: 'Pia Passkey' });
      cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });
    });

    it('offers the passkey alone, and deleting the passkey goes on once it has answered', async () => {
      await signInThroughDashboard(page, origin, user);
      await goToSection(page, 'Security');
      await page.getByLabel('Passkey name').fill('Old phone');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('cell', { name: 'Old phone', exact: true }).waitFor();
      await signOut(page);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await landingHeading(page).waitFor();

      await age(user);
      await goToSection(page, 'Security');
      await page.getByRole('button', { name: 'Delete Old phone' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete passkey' }).click();
      const dialog = confirmDialog();
      await dialog.getByText('Your account signs in with a passkey: confirm with it.').waitFor();
      // The password is asked for only beside the passkey (a key that verifies no PIN needs it): not required here.
      expect(await dialog.getByLabel('Password (for a security key without a PIN)').getAttribute('required')).toBeNull();
      await dialog.getByRole('button', { name: 'Use a passkey' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('No passkeys yet.').waitFor();
      expect(await t.dataSource.query('SELECT name FROM passkeys WHERE user_id = $1', [user.userId])).toEqual([]);
      const [entry] = await t.dataSource.query(`SELECT changes FROM audit_log WHERE workspace_id = $1 AND action = 'user.reauthenticated'`, [user.workspaceId]);
      expect(entry).toEqual({ changes: ['passkey'] });
    });
  });
});
