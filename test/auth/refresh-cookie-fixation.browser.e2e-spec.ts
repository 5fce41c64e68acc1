/// <reference lib="dom" />
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { landingHeading, launchBrowser } from '../helpers/browser';
import { bearer, createApiToken, loginUser, registerUser, type UserSession } from '../helpers/identity';
import { freePort } from '../helpers/ports';
import { deploySite } from '../helpers/sites';
import { startTlsProxy, type TlsProxy } from '../helpers/tls-proxy';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * Issue 26: the layout the README used to recommend, the API and the sites under one
 * parent domain (`api.example.test` beside `*.sites.example.test`), over real https (a
 * TLS front with a self-signed certificate the browser is told to accept; both names
 * mapped to 127.0.0.1 in Chromium). A hosted site's script sets the refresh cookie for
 * the parent domain, with a longer path than the real one so the browser sends it
 * first. The dashboard on the API host must stay the victim's own session.
 */
describe('A hosted site cannot plant the refresh cookie on the API host (real browser, e2e)', () => {
  const API = 'api.example.test';
  const SITES = 'sites.example.test';
  let t: TestApp;
  let tls: TlsProxy;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let attacker: UserSession;
  let victim: UserSession;
  let deployToken: string;
  const errors: string[] = [];

  const dashboard = (path = '/') => `https://${API}:${tls.port}/app${path}`;

  /**
   * The attacker's site `slug`: a script that plants a fresh refresh token of the attacker's
   * (each test its own, since refresh tokens are single use) for the parent domain, under the
   * name the API used to read and under the new one, with paths longer than the real
   * cookie's (so sent first). The browser must refuse the `__Host-` ones.
   */
  async function plantingSite(slug: string): Promise<{ url: string; token: string }> {
    const token = (await loginUser(t, attacker)).refreshToken!;
    const plant = [
      `const rt = ${JSON.stringify(token)};`,
      'const attempts = [',
      '  `statichost_refresh=${rt}; domain=example.test; path=/auth/refresh; secure`,',
      '  `statichost_refresh=${rt}; domain=example.test; path=/auth/refresh`,',
      '  `__Host-statichost_refresh=${rt}; domain=example.test; path=/auth/refresh; secure`,',
      '  `__Host-statichost_refresh=${rt}; domain=example.test; path=/; secure`,',
      '  `=__Host-statichost_refresh=${rt}; domain=example.test; path=/; secure`,',
      '];',
      'for (const cookie of attempts) document.cookie = cookie;',
      "document.getElementById('done').textContent = 'planted';",
    ].join('\n');
    const site = await deploySite(t, deployToken, slug, [
      { path: 'index.html', content: '<!doctype html><html lang="en"><title>Free stuff</title><p id="done"></p><script src="/plant.js"></script></html>' },
      { path: 'plant.js', content: plant },
    ]);
    expect(site.url).toBe(`https://${slug}.${SITES}:${tls.port}`);
    return { url: `${site.url}/`, token };
  }

  beforeAll(async () => {
    buildWeb({ quiet: true });
    // The public port is the TLS front's, so the app's own URLs are the ones the browser uses.
    const publicPort = await freePort();
    t = await startTestApp({ env: { PUBLIC_SCHEME: 'https', API_HOSTS: API, SITES_DOMAIN: SITES, PUBLIC_PORT: String(publicPort) } });
    tls = await startTlsProxy(t.port, [API, `*.${SITES}`], publicPort);
    browser = await launchBrowser(undefined, { mapToLoopback: ['*.example.test'] });

    attacker = await registerUser(t);
    victim = await registerUser(t);
    deployToken = (await createApiToken(t, attacker, { scopes: ['deploy'] })).token;
  });
  afterAll(async () => {
    await browser?.close();
    await tls?.close();
    await t?.close();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await (browser.browser as Browser).newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => errors.push(e.message));
    return { context, page };
  }
  afterEach(() => expect(errors).toEqual([]));

  /** Runs `load` and returns the dashboard's POST /auth/refresh answer it caused. */
  async function refreshDuring(page: Page, load: () => Promise<unknown>): Promise<Response> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/refresh' && r.request().method() === 'POST'),
      load(),
    ]);
    return response;
  }

  /** Whose account an access JWT belongs to. */
  async function whoseToken(accessToken: string): Promise<string> {
    const me = await t.http().get('/users/me').set(bearer(accessToken)).expect(200);
    return me.body.email as string;
  }

  /** Visits a planting site; returns the attacker's token it planted. */
  async function visitEvilSite(page: Page, slug: string): Promise<string> {
    const evil = await plantingSite(slug);
    await page.goto(evil.url);
    await page.getByText('planted').waitFor();
    // The browser kept only the cookie a sibling host may set: the old name, for the parent domain.
    const planted = (await page.context().cookies(`https://${API}:${tls.port}/auth/refresh`)).filter((c) => c.value.includes(evil.token));
    expect(planted.map((c) => `${c.name} ${c.domain} ${c.path}`)).toEqual(['statichost_refresh .example.test /auth/refresh']);
    return evil.token;
  }

  it('warns at start-up that the API host and the sites share a parent domain that is not a public suffix', () => {
    const warnings = t.logs
      .map((line) => JSON.parse(line) as { level: string; msg: string; apiHost?: string; parent?: string })
      .filter((l) => l.level === 'warn');
    expect(warnings).toContainEqual(
      expect.objectContaining({ apiHost: API, parent: 'example.test', msg: expect.stringContaining('registrable domain of their own') }),
    );
  });

  it('a signed-in victim who visits the site keeps their own session on the next dashboard load', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(dashboard('/sign-in'));
      await page.getByLabel('Email').fill(victim.email);
      await page.getByLabel('Password').fill(victim.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await landingHeading(page).waitFor();
      expect(page.url()).toContain(`/app/w/${victim.workspaceId}/`);

      const planted = await visitEvilSite(page, 'evil-signed-in');

      // A fresh load of the dashboard refreshes from the cookies: the planted one reaches the API...
      const refresh = await refreshDuring(page, () => page.goto(dashboard('/')));
      expect(await refresh.request().headerValue('cookie')).toContain(`statichost_refresh=${planted}`);
      // ...and is not the one used: the session is still the victim's, in the API and on the page.
      expect(refresh.status()).toBe(200);
      expect(await whoseToken(((await refresh.json()) as { accessToken: string }).accessToken)).toBe(victim.email);
      await landingHeading(page).waitFor();
      expect(page.url()).toContain(`/app/w/${victim.workspaceId}/`);
      expect(page.url()).not.toContain(attacker.workspaceId);
    } finally {
      await context.close();
    }
  });

  it('a signed-out victim who visits the site is not signed into the attacker’s account', async () => {
    const { context, page } = await newPage();
    try {
      await visitEvilSite(page, 'evil-signed-out');
      const refreshes: number[] = [];
      page.on('response', (r) => {
        if (new URL(r.url()).pathname === '/auth/refresh') refreshes.push(r.status());
      });
      await page.goto(dashboard('/'));
      // Whichever page the dashboard settles on: the sign-in page, not the attacker's projects.
      await page.getByRole('heading', { name: /^(Sign in|Projects)$/ }).waitFor();
      expect(page.url()).not.toContain(attacker.workspaceId);
      expect(new URL(page.url()).pathname).toBe('/app/sign-in');
      expect(refreshes.filter((status) => status === 200)).toEqual([]);
      // The dashboard's own refresh call, from its origin, with the planted cookie attached: no session.
      const status = await page.evaluate(() =>
        fetch('/auth/refresh', { method: 'POST', headers: { 'X-Session-Mode': 'cookie', 'Content-Type': 'application/json' }, body: '{}' }).then(
          (r) => r.status,
        ),
      );
      expect(status).toBe(401);
    } finally {
      await context.close();
    }
  });
});
