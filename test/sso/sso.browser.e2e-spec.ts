import { randomBytes } from 'node:crypto';

import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, goToSection, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * Single sign-on in a real browser (issue 32), against a real OpenID provider (oidc-provider
 * in its own process): the owner sets it up on the workspace's Single sign-on page and
 * verifies the domain's TXT record (a real DNS server); then someone of that domain signs in
 * from the sign-in page: start, the provider's sign-in and consent, the callback, and a
 * dashboard session from the cookie. axe on both pages.
 */
describe('Single sign-on in the dashboard (browser e2e)', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let idp: TestOidcProvider;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  let origin: string;
  const errors: string[] = [];
  const secret = `secret-${randomBytes(8).toString('hex')}`;
  const domain = `corp-${randomBytes(4).toString('hex')}.example`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    dns = await startDnsServer();
    t = await startTestApp({ env: { DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    // The address the provider sends people back to: the browser uses it throughout, so the session cookie is where the dashboard is.
    origin = new URL(t.config.apiBaseUrl).origin;
    idp = await startOidcProvider([{ client_id: 'statichost', client_secret: secret, redirect_uris: [`${origin}/auth/sso/callback`] }]);
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Olga Owner' });
    await verifyEmail(t, owner);
    ({ context, page } = await phonePage(browser.browser, errors));
    await signInThroughDashboard(page, origin, owner);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await idp?.close();
    await dns?.close();
  });

  afterEach(() => expect(errors).toEqual([]));

  it('sets up SSO on the workspace page and verifies the domain’s TXT record', async () => {
    await goToSection(page, 'Single sign-on');
    await page.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'Identity provider' });
    await form.getByLabel('Issuer').fill(idp.issuer);
    await form.getByLabel('Client ID').fill('statichost');
    await form.getByLabel('Client secret').fill(secret);
    await form.getByLabel('Email domains').fill(domain);
    await form.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row', { name: new RegExp(domain.replace(/\./g, '\\.')) });
    await row.waitFor();
    await expectAccessible(page, 'single sign-on');

    const [stored] = await t.dataSource.query(`SELECT token FROM sso_domains WHERE domain = $1`, [domain]);
    await row.getByText(stored.token).waitFor();
    dns.setTxt(`_statichost-challenge.${domain}`, stored.token);
    await row.getByRole('button', { name: `Verify ${domain}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${domain} is verified.` })
      .waitFor();
    await row.getByText(/^Verified/).waitFor();
  });

  it('signs someone of the domain in from the sign-in page: provider, consent, callback, a dashboard session', async () => {
    const { page: visitor, context: visitorContext } = await phonePage(browser.browser, errors);
    try {
      const email = `grace@${domain}`;
      await visitor.goto(`${origin}/app/sign-in`);
      // A domain without SSO says so on the page.
      await visitor.getByLabel('Email').fill('ada@nosso.example');
      await visitor.getByRole('button', { name: 'Use single sign-on (SSO)' }).click();
      await visitor.getByRole('alert').filter({ hasText: 'No single sign-on is set up for nosso.example' }).waitFor();
      await visitor.getByLabel('Email').fill(email);
      await expectAccessible(visitor, 'sign-in');
      await visitor.getByRole('button', { name: 'Use single sign-on (SSO)' }).click();
      // The provider's own page: sign in and allow.
      await visitor.getByRole('heading', { name: 'Sign in to the test identity provider' }).waitFor();
      await visitor.getByRole('button', { name: 'Sign in and allow' }).click();
      await visitor.waitForURL(`${origin}/app/**`);
      await visitor.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      // The session is the cookie's: a reload keeps it.
      await visitor.reload();
      await visitor.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      const [member] = await t.dataSource.query(
        `SELECT wm.role FROM workspace_members wm JOIN users u ON u.id = wm.user_id WHERE u.email = $1 AND wm.workspace_id = $2`,
        [email, owner.workspaceId],
      );
      expect(member).toEqual({ role: 'viewer' });
    } finally {
      await visitorContext.close();
    }
  });

  it('shows why a refused sign-in came back, and signs nobody in', async () => {
    const { page: visitor, context: visitorContext } = await phonePage(browser.browser, errors);
    try {
      await visitor.goto(`${origin}/auth/sso/callback?code=stolen&state=forged-state-0123456789`);
      await visitor.waitForURL(`${origin}/app/sign-in?sso_error=invalid_state`);
      await visitor.getByRole('alert').filter({ hasText: 'Single sign-on failed' }).waitFor();
      expect((await visitorContext.cookies()).map((c) => c.name)).not.toContain('statichost_refresh');
      await expectAccessible(visitor, 'sign-in after a refused SSO');
    } finally {
      await visitorContext.close();
    }
  });
});
