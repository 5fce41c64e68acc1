/// <reference lib="dom" />
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, launchBrowser } from '../helpers/browser';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

/**
 * Issue 26: the service's own HTML pages (a gate, the built-in 404s, Swagger UI at
 * /docs) carry a strict Content-Security-Policy and still work in a real browser:
 * no violation reported, styles applied, the gate's form posts, Swagger UI renders
 * and calls the API.
 */
describe("The service's own pages under their CSP, in a real browser (e2e)", () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    const session = await registerUser(t);
    const { token } = await createApiToken(t, session, { scopes: ['deploy'] });
    await t
      .http()
      .post('/projects')
      .set(asUser(session))
      .send({ name: 'Walled', slug: 'walled', type: 'static_site', gate_type: 'password', password: 'open sesame' })
      .expect(201);
    await deploySite(t, token, 'walled', [{ path: 'index.html', content: '<!doctype html><title>Inside</title><h1 id="inside">inside</h1>' }]);
    await deploySite(t, token, 'plain', [
      { path: 'index.html', content: '<!doctype html><title>Plain</title><h1>plain</h1>' },
      { path: '404.html', content: '<!doctype html><title>Own 404</title><h1>own</h1>' },
    ]);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    await context?.close();
    context = await browser.browser.newContext();
    // Runs before any page script, outside the page's CSP (Playwright injects it through the DevTools protocol).
    await context.addInitScript(() => {
      const w = window as unknown as { cspViolations: string[] };
      w.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
    });
  });

  /** Console errors and page errors, and the CSP violations the page reported. */
  function watch(page: Page) {
    const errors: string[] = [];
    page.on('console', (msg) => {
      // A 401 or 404 document is what these pages are; Chromium logs its status as a console error.
      if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of 40[14]/.test(msg.text())) errors.push(msg.text());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    return {
      errors,
      violations: () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
    };
  }

  it('shows the password gate with its style, posts the form and unlocks the site, without a CSP violation', async () => {
    const page = await context.newPage();
    const seen = watch(page);
    const url = `http://walled.localhost:${t.port}/`;
    const res = await page.goto(url);
    expect(res?.status()).toBe(401);
    const headers = await res!.allHeaders();
    expect(headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    // The inline stylesheet applies: the button's colour comes from it.
    expect(await page.locator('button[type="submit"]').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(34, 81, 209)');
    expect(await seen.violations()).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'csp-gate.png') });

    await page.fill('#gate-password', 'open sesame');
    await Promise.all([page.waitForURL(url), page.click('button[type="submit"]')]);
    expect(await page.locator('#inside').textContent()).toBe('inside');
    expect(seen.errors).toEqual([]);
  });

  it('shows the built-in 404 pages with their style and no CSP violation', async () => {
    for (const url of [`http://no-such-site.localhost:${t.port}/`, `http://walled.localhost:${t.port}/.statichost/nothing`]) {
      const page = await context.newPage();
      const seen = watch(page);
      const res = await page.goto(url);
      expect([401, 404]).toContain(res?.status());
      expect((await res!.allHeaders())['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
      expect(await page.locator('main').evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('solid');
      expect(await seen.violations()).toEqual([]);
      expect(seen.errors).toEqual([]);
      await page.close();
    }
    // A site's own 404.html gets no policy of ours.
    const page = await context.newPage();
    const own = await page.goto(`http://plain.localhost:${t.port}/missing.png`);
    expect(own?.status()).toBe(404);
    expect(await page.title()).toBe('Own 404');
    expect((await own!.allHeaders())['content-security-policy']).toBeUndefined();
  });

  it('renders Swagger UI at /docs under its CSP and runs "Try it out" against the API', async () => {
    const page = await context.newPage();
    const seen = watch(page);
    const res = await page.goto(`http://localhost:${t.port}/docs`);
    expect(res?.status()).toBe(200);
    const headers = await res!.allHeaders();
    expect(headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self' 'sha256-/);
    expect(headers['content-security-policy']).not.toContain("'unsafe-inline'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    await page.locator('.swagger-ui .info .title').waitFor();
    expect(await page.locator('.swagger-ui .info .title').textContent()).toContain('Static hosting API');
    // The inline <style> applies (body background #fafafa), as does the SVG sprite's style attribute (it takes no room).
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(250, 250, 250)');
    expect(await page.locator('body > svg').evaluate((el) => getComputedStyle(el).position)).toBe('absolute');

    const health = page
      .locator('.opblock-get')
      .filter({ has: page.locator('[data-path="/health"]') })
      .first();
    await health.locator('.opblock-summary').click();
    await health.locator('button.try-out__btn').click();
    await health.locator('button.execute').click();
    await health.locator('.live-responses-table tbody .response-col_status').first().waitFor();
    expect((await health.locator('.live-responses-table tbody .response-col_status').first().textContent())?.trim()).toBe('200');
    await page.screenshot({ path: join(ARTIFACTS, 'csp-docs.png'), fullPage: false });
    expect(await seen.violations()).toEqual([]);
    expect(seen.errors).toEqual([]);
  });
});
