/// <reference lib="dom" />
import { join } from 'node:path';

import type { BrowserContext, CDPSession, Page } from 'playwright-core';

import { PASSKEY_VERIFIER, type PasskeyVerifier } from '../../src/auth/two-factor/passkey-verifier';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, goToSection, landingHeading, launchBrowser, phonePage, signInThroughDashboard, signOut } from '../helpers/browser';
import { registerUser, type UserSession } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * Passkeys in a real browser (issue 32): Chromium's virtual authenticator (the DevTools
 * protocol's WebAuthn domain) stands in for the device, so the dashboard's
 * @simplewebauthn/browser calls, the browser's own checks (origin, RP id) and the service's
 * verification all run for real. The dashboard is opened at http://localhost:PORT, the
 * relying party's origin (an IP address cannot be a WebAuthn RP id).
 */
describe('Passkeys in the dashboard, with Chromium’s virtual authenticator (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let user: UserSession;
  let origin: string;
  const errors: string[] = [];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    origin = `http://localhost:${t.port}`;
    browser = await launchBrowser();
    user = await registerUser(t, { name: 'Pat Passkey' });
    ({ context, page } = await phonePage(browser.browser, errors));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    }));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  const passkeysOf = (userId: string) =>
    t.dataSource.query(`SELECT name, last_used_at FROM passkeys WHERE user_id = $1 ORDER BY created_at`, [userId]) as Promise<
      { name: string; last_used_at: Date | null }[]
    >;

  it('registers a passkey in the Security page, renames it, signs out and signs back in with it alone', async () => {
    await signInThroughDashboard(page, origin, user);
    await goToSection(page, 'Security');
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    await page.getByText('No passkeys yet.').waitFor();
    await expectAccessible(page, 'security-passkeys-empty');

    await page.getByLabel('Passkey name').fill('Test phone');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('cell', { name: 'Test phone', exact: true }).waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);
    await expectAccessible(page, 'security-passkeys');

    await page.getByRole('button', { name: 'Rename Test phone' }).click();
    await page.getByLabel('New name').fill('Work phone');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('cell', { name: 'Work phone', exact: true }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-security-passkeys.png'), fullPage: true });
    expect(await passkeysOf(user.userId)).toEqual([{ name: 'Work phone', last_used_at: null }]);

    await signOut(page);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'sign-in-with-passkey');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await landingHeading(page).waitFor();

    expect(await passkeysOf(user.userId)).toEqual([{ name: 'Work phone', last_used_at: expect.any(Date) }]);
    const [signIn] = await t.dataSource.query(
      `SELECT actor_id, user_agent, changes FROM audit_log WHERE workspace_id = $1 AND action = 'user.signed_in' ORDER BY seq DESC LIMIT 1`,
      [user.workspaceId],
    );
    expect(signIn).toEqual({ actor_id: user.userId, user_agent: 'Chrome', changes: ['passkey'] });
  });

  it('answers the second-factor seam with the same passkey: only for its own user, once', async () => {
    const verifier = t.app.get<PasskeyVerifier>(PASSKEY_VERIFIER);
    const answer = () =>
      page.evaluate(async () => {
        const options = (await (
          await fetch('/auth/passkeys/authentication-options', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
        ).json()) as { challenge: string; rpId: string };
        const bytes = (b64url: string) => Uint8Array.from(atob(b64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const credential = (await navigator.credentials.get({
          publicKey: { challenge: bytes(options.challenge), rpId: options.rpId, userVerification: 'preferred' },
        })) as PublicKeyCredential & { toJSON(): unknown };
        return credential.toJSON();
      });
    const mine = await answer();
    const other = await registerUser(t);
    expect(await verifier.verifySecondFactor(other.userId, await answer())).toBe(false);
    expect(await verifier.verifySecondFactor(user.userId, mine)).toBe(true);
    expect(await verifier.verifySecondFactor(user.userId, mine)).toBe(false);
  });

  it('deletes the passkey in the Security page, after which it signs in no more', async () => {
    await goToSection(page, 'Security');
    await page.getByRole('button', { name: 'Delete Work phone' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete passkey' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    expect(await passkeysOf(user.userId)).toEqual([]);

    await signOut(page);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    // The browser still holds the key; the service no longer knows it.
    await page
      .getByRole('alert')
      .getByText(/not registered/)
      .waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
  });
});
