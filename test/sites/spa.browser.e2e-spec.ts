/// <reference lib="dom" />
import { join } from 'node:path';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, launchBrowser } from '../helpers/browser';
import { createApiToken, registerUser } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

/** A framework-free single-page app: history.pushState for navigation, rendering by location.pathname. */
const APP_JS = `
const routes = { '/': 'Home', '/settings/profile': 'Profile settings', '/users/jane.doe': 'Jane' };
function render() {
  document.getElementById('view').textContent = routes[location.pathname] || 'No such route';
  document.getElementById('path').textContent = location.pathname;
}
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-route]');
  if (!a) return;
  e.preventDefault();
  history.pushState(null, '', a.getAttribute('href'));
  render();
});
window.addEventListener('popstate', render);
render();
`;

describe('Single-page app in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    const session = await registerUser(t);
    const { token } = await createApiToken(t, session, { scopes: ['deploy'] });
    // No 404.html anywhere: the deployment is taken for a single-page app.
    await deploySite(t, token, 'spa', [
      {
        path: 'index.html',
        content: `<!doctype html><html><head><title>SPA</title><script src="/app.js" defer></script></head>
<body><nav><a data-route href="/settings/profile" id="to-profile">Profile</a></nav><h1 id="view">loading</h1><p id="path"></p></body></html>`,
      },
      { path: 'app.js', content: APP_JS },
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('navigates to a client route, reloads, and the app renders that route', async () => {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    const base = `http://spa.localhost:${t.port}`;
    await page.goto(`${base}/`);
    await page.waitForFunction(() => document.getElementById('view')?.textContent === 'Home');

    await page.click('#to-profile');
    await page.waitForFunction(() => document.getElementById('view')?.textContent === 'Profile settings');
    expect(page.url()).toBe(`${base}/settings/profile`);

    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(200);
    await page.waitForFunction(() => document.getElementById('view')?.textContent === 'Profile settings');
    expect(await page.locator('#path').textContent()).toBe('/settings/profile');
    await page.screenshot({ path: join(ARTIFACTS, 'spa-reload-client-route.png') });

    // A direct visit to another client route, with a dot in its name, works too; a missing asset stays a 404.
    await page.goto(`${base}/users/jane.doe`);
    await page.waitForFunction(() => document.getElementById('view')?.textContent === 'Jane');
    const asset = await page.goto(`${base}/missing.js`);
    expect(asset?.status()).toBe(404);
    await context.close();
  });
});
