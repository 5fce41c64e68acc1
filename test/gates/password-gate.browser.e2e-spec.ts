/// <reference lib="dom" />
import { join } from 'node:path';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, launchBrowser } from '../helpers/browser';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('Password gate in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    const session = await registerUser(t);
    const { token } = await createApiToken(t, session, { scopes: ['deploy'] });
    await t
      .http()
      .post('/projects')
      .set(asUser(session))
      .send({ name: 'Launch plan', slug: 'launch-plan', type: 'static_site', gate_type: 'password', password: 'correct horse' })
      .expect(201);
    await deploySite(t, token, 'launch-plan', [
      {
        path: 'index.html',
        content: `<!doctype html><html><head><title>Launch plan</title><link rel="stylesheet" href="/style.css"><script src="/app.js" defer></script></head>
<body><h1 id="title">The launch plan</h1><img id="logo" src="/logo.png" alt="logo"><p id="js">js not run</p></body></html>`,
      },
      { path: 'style.css', content: 'h1 { color: rgb(0, 128, 0); }' },
      { path: 'app.js', content: 'document.getElementById("js").textContent = "js ran";' },
      { path: 'logo.png', content: PNG_1x1, encoding: 'base64' },
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the password page, refuses a wrong password, then serves the site with its CSS, JS and image', async () => {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    const url = `http://launch-plan.localhost:${t.port}/`;

    const first = await page.goto(url);
    expect(first?.status()).toBe(401);
    await expect(page.title()).resolves.toBe('Password required');
    expect(await page.locator('label[for="gate-password"]').textContent()).toBe('Password');

    await page.fill('#gate-password', 'wrong guess');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(await page.locator('#gate-error').textContent()).toContain('not right');

    await page.fill('#gate-password', 'correct horse');
    await Promise.all([page.waitForURL(url), page.click('button[type="submit"]')]);
    await page.waitForFunction(() => document.getElementById('js')?.textContent === 'js ran');
    expect(await page.locator('#title').textContent()).toBe('The launch plan');
    expect(await page.locator('#title').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(0, 128, 0)');
    expect(await page.locator('#logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'password-gate-unlocked.png') });
    await context.close();
  });
});
