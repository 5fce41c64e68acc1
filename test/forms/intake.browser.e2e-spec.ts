/// <reference lib="dom" />
import AxeBuilder from '@axe-core/playwright';

import { openFields, submissionAad } from '../../src/forms/submission-crypto';
import { LeadsKeyring } from '../../src/leads/keyring';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchBrowser } from '../helpers/browser';
import { createApiToken, registerUser } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

const INDEX = `<!doctype html><html lang="en"><head><title>Contact us</title></head><body>
<form name="contact" method="POST" netlify netlify-honeypot="bot-field" action="/thanks/">
  <input type="hidden" name="form-name" value="contact">
  <p hidden><label>Leave empty <input name="bot-field"></label></p>
  <label>Name <input id="name" name="name"></label>
  <label>Message <textarea id="message" name="message"></textarea></label>
  <button id="send" type="submit">Send</button>
</form></body></html>`;
const NEWSLETTER = `<!doctype html><html lang="en"><head><title>Newsletter</title><script src="/app.js" defer></script></head><body>
<form id="news" data-statichost-form="newsletter" method="post">
  <input type="hidden" name="form-name" value="newsletter">
  <label>Email <input id="email" type="email" name="email"></label>
  <button type="submit">Subscribe</button>
</form><p id="result">not sent</p></body></html>`;
const APP_JS = `document.getElementById('news').addEventListener('submit', async (e) => {
  e.preventDefault();
  const res = await fetch('/', { method: 'POST', headers: { Accept: 'application/json' }, body: new URLSearchParams(new FormData(e.target)) });
  const body = await res.json();
  document.getElementById('result').textContent = res.status + ' ' + body.id;
});`;
const PLAIN = `<!doctype html><html lang="en"><head><title>Plain</title></head><body>
<form data-statichost-form="plain" method="post"><input type="hidden" name="form-name" value="plain"><label>Say <input id="say" name="say"></label><button type="submit">Go</button></form></body></html>`;

describe('Forms on hosted sites in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    const session = await registerUser(t);
    const { token } = await createApiToken(t, session, { scopes: ['deploy'] });
    await deploySite(t, token, 'browserforms', [
      { path: 'index.html', content: INDEX },
      { path: 'thanks/index.html', content: '<!doctype html><html lang="en"><title>Thanks</title><h1 id="thanks">Thanks!</h1></html>' },
      { path: 'newsletter.html', content: NEWSLETTER },
      { path: 'app.js', content: APP_JS },
      { path: 'plain.html', content: PLAIN },
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const stored = async (name: string) => {
    const rows = await t.dataSource.query(`SELECT s.* FROM form_submissions s JOIN forms f ON f.id = s.form_id WHERE f.name = $1 ORDER BY s.created_at`, [
      name,
    ]);
    const keyring = t.app.get(LeadsKeyring);
    return rows.map((r: { id: string; form_id: string; key_id: string; nonce: Buffer; ciphertext: Buffer }) =>
      openFields(keyring.key(r.key_id)!, r, submissionAad(r.form_id, r.id)),
    );
  };

  it('submits a Netlify-style form by clicking, landing on its thank-you page', async () => {
    const page = await browser.browser.newPage();
    await page.goto(`http://browserforms.localhost:${t.port}/`);
    await page.fill('#name', 'Ann Browser');
    await page.fill('#message', 'Typed in Chromium');
    await Promise.all([page.waitForURL(`http://browserforms.localhost:${t.port}/thanks/`), page.click('#send')]);
    expect(await page.locator('#thanks').textContent()).toBe('Thanks!');
    expect(await stored('contact')).toEqual([{ name: 'Ann Browser', message: 'Typed in Chromium' }]);
    await page.close();
  });

  it('submits a data-statichost-form with fetch and reads the JSON answer', async () => {
    const page = await browser.browser.newPage();
    await page.goto(`http://browserforms.localhost:${t.port}/newsletter.html`);
    await page.fill('#email', 'reader@example.com');
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('200 fsub_'));
    expect(await stored('newsletter')).toEqual([{ email: 'reader@example.com' }]);
    await page.close();
  });

  it('shows an accessible built-in thank-you page when the form names none', async () => {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://browserforms.localhost:${t.port}/plain.html`);
    await page.fill('#say', 'hello');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.waitForFunction(() => document.title === 'Thank you');
    const result = await new AxeBuilder({ page }).analyze();
    expect(result.violations.map((v) => v.id)).toEqual([]);
    expect(await stored('plain')).toEqual([{ say: 'hello' }]);
    await context.close();
  });
});
