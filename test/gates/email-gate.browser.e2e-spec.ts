/// <reference lib="dom" />
import { join } from 'node:path';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, launchBrowser } from '../helpers/browser';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

describe('Email gate in a real browser (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let projectId: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t);
    const { token } = await createApiToken(t, owner, { scopes: ['deploy'] });
    projectId = (
      await t
        .http()
        .post('/projects')
        .set(asUser(owner))
        .send({ name: 'Product webinar', slug: 'webinar', type: 'static_site', gate_type: 'email' })
        .expect(201)
    ).body.id;
    await deploySite(t, token, 'webinar', [
      { path: 'index.html', content: '<!doctype html><title>Webinar</title><h1 id="title">Home</h1>' },
      {
        path: 'replay.html',
        content: `<!doctype html><html><head><title>Replay</title><link rel="stylesheet" href="/style.css"></head>
<body><h1 id="title">The webinar replay</h1></body></html>`,
      },
      { path: 'style.css', content: 'h1 { color: rgb(0, 0, 128); }' },
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('asks for an email, refuses an invalid one, lets a valid one in to the page first asked for, and records the lead', async () => {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    const url = `http://webinar.localhost:${t.port}/replay`; // canonical URL of replay.html

    const first = await page.goto(url);
    expect(first?.status()).toBe(401);
    await expect(page.title()).resolves.toBe('Enter your email to continue');
    expect(await page.locator('label[for="gate-email"]').textContent()).toBe('Email address');

    // The browser's own check lets this through (no dot needed), the server's does not.
    await page.fill('#gate-email', 'someone@localhost');
    const refused = await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(refused[0]?.status()).toBe(400);
    expect(await page.locator('#gate-error').textContent()).toContain('does not look like an email address');
    expect(await page.inputValue('#gate-email')).toBe('someone@localhost');
    await page.screenshot({ path: join(ARTIFACTS, 'email-gate-refused.png') });

    await page.fill('#gate-email', 'Ada.Lovelace@Analytical.example');
    await Promise.all([page.waitForURL(url), page.click('button[type="submit"]')]);
    expect(await page.locator('#title').textContent()).toBe('The webinar replay');
    expect(await page.locator('#title').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(0, 0, 128)');
    // The cookie opens the rest of the site too.
    await page.goto(`http://webinar.localhost:${t.port}/`);
    expect(await page.locator('#title').textContent()).toBe('Home');
    await page.goto(url);
    await page.screenshot({ path: join(ARTIFACTS, 'email-gate-unlocked.png') });
    await context.close();

    const leads = await t.http().get(`/projects/${projectId}/gate/leads`).set(asUser(owner)).expect(200);
    expect(leads.body.meta.total).toBe(1);
    expect(leads.body.data).toEqual([{ id: expect.stringMatching(/^lead_/), email: 'ada.lovelace@analytical.example', capturedAt: expect.any(String) }]);
  });
});
