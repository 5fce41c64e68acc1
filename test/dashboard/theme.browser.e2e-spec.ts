/// <reference lib="dom" />
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { REACT_ARIA_OVERSCROLL_STYLE } from '../../src/dashboard/dashboard-http';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { asUser, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * Issue 33's design system in a real browser: the theme switch (remembered across a
 * reload, and following the system when set back), every page AA in the dark theme
 * (axe's color-contrast), toasts announced as status messages, and the confirm dialog
 * (React Aria's) keeping focus inside until Escape closes it — all without a console
 * error, which is how a CSP refusal of a run-time <style> shows.
 */
describe('Themes, toasts and dialogs of the dashboard (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let owner: UserSession;
  const origin = () => `http://127.0.0.1:${t.port}`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Theo Theme' });
    await verifyEmail(t, owner);
    await t.http().post('/projects').set(asUser(owner)).send({ name: 'Night Site', slug: 'night-site', type: 'static_site' }).expect(201);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The page's background as the browser paints it (tokens resolve through light-dark()). */
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  /** Whether a colour is dark: its channels' mean under the middle. */
  const isDark = (rgb: string) => {
    const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
    return (r + g + b) / 3 < 128;
  };

  async function open(b: Browser, colorScheme: 'light' | 'dark') {
    const errors: string[] = [];
    const { context, page } = await phonePage(b, errors, { colorScheme });
    await signInThroughDashboard(page, origin(), owner);
    return { context, page, errors };
  }

  it('follows the system, switches from the account menu, and remembers the choice across a reload', async () => {
    const { context, page, errors } = await open(browser.browser, 'light');
    try {
      expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBeNull();
      expect(isDark(await background(page))).toBe(false);

      await page.getByRole('button', { name: 'Account menu' }).click();
      const dark = page.getByRole('menuitemradio', { name: 'Dark theme' });
      expect(await page.getByRole('menuitemradio', { name: 'System theme' }).getAttribute('aria-checked')).toBe('true');
      await dark.click();
      expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('dark');
      expect(isDark(await background(page))).toBe(true);

      await page.reload();
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('dark');
      expect(isDark(await background(page))).toBe(true);
      await expectAccessible(page, 'projects, dark by choice on a light system');

      // Back to the system's (light) theme: the attribute goes, and so does the dark.
      await page.getByRole('button', { name: 'Account menu' }).click();
      expect(await page.getByRole('menuitemradio', { name: 'Dark theme' }).getAttribute('aria-checked')).toBe('true');
      await page.getByRole('menuitemradio', { name: 'System theme' }).click();
      expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBeNull();
      expect(isDark(await background(page))).toBe(false);
      await page.reload();
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      expect(isDark(await background(page))).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is AA in the dark theme on every kind of page (axe color-contrast), with the sidebar drawer open too', async () => {
    const { context, page, errors } = await open(browser.browser, 'dark');
    try {
      expect(isDark(await background(page))).toBe(true);
      const ws = `/app/w/${owner.workspaceId}`;
      const project = (await t.http().get('/projects').set(asUser(owner)).expect(200)).body.data[0].id as string;
      for (const [name, path, ready] of [
        ['projects', `${ws}/projects`, () => page.getByRole('row', { name: /Night Site/ })],
        ['tokens', `${ws}/tokens`, () => page.getByRole('heading', { name: 'API tokens', level: 1 })],
        ['billing', `${ws}/billing`, () => page.getByRole('table', { name: /What each plan allows/ })],
        ['members', `${ws}/members`, () => page.getByRole('row', { name: new RegExp(owner.email.replace(/[.]/g, '\\.')) })],
        ['project settings', `${ws}/projects/${project}/settings`, () => page.getByRole('heading', { name: 'Night Site', level: 1 })],
        ['account', '/app/account', () => page.getByRole('button', { name: 'Save' }).first()],
      ] as const) {
        await page.goto(`${origin()}${path}`);
        await ready().waitFor();
        await page.waitForLoadState('networkidle');
        await expectAccessible(page, `${name} (dark)`);
      }
      // The phone's menu: the drawer with the sidebar, in the dark theme.
      await page.getByRole('banner').getByRole('button', { name: 'Menu', exact: true }).click();
      await page.getByRole('dialog', { name: 'Menu' }).getByRole('navigation', { name: 'Main' }).waitFor();
      await expectAccessible(page, 'sidebar drawer (dark)');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Menu' }).waitFor({ state: 'hidden' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the phone’s menu stays open through a redirect (/ to the first workspace) and closes when one of its links is followed', async () => {
    const { context, page, errors } = await open(browser.browser, 'light');
    // The workspace list is held, so /app/ stays on its way to the first workspace while the menu opens.
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const list = '**/workspaces?*';
    await page.route(list, async (route) => {
      await held;
      await route.fallback();
    });
    try {
      await page.goto(`${origin()}/app/`);
      await page.getByRole('banner').getByRole('button', { name: 'Menu', exact: true }).click();
      const drawer = page.getByRole('dialog', { name: 'Menu' });
      await drawer.getByRole('link', { name: 'Account', exact: true }).waitFor();
      // Before the list arrives there is no workspace, so none of its sections.
      expect(await drawer.getByRole('link', { name: 'API tokens', exact: true }).count()).toBe(0);
      release();
      await page.waitForURL(/\/app\/w\/ws_[^/]+\/projects$/);
      await drawer.getByRole('link', { name: 'API tokens', exact: true }).waitFor();
      expect(await drawer.isVisible()).toBe(true);
      await drawer.getByRole('link', { name: 'Account', exact: true }).click();
      await page.waitForURL(/\/app\/account$/);
      await drawer.waitFor({ state: 'hidden' });
      expect(errors).toEqual([]);
    } finally {
      release();
      await page.unroute(list);
      await context.close();
    }
  });

  it('at a desktop’s width: the sidebar beside the page, the full breadcrumb trail, the workspace switcher', async () => {
    const errors: string[] = [];
    const { context, page } = await phonePage(browser.browser, errors, { viewport: { width: 1280, height: 800 } });
    try {
      await signInThroughDashboard(page, origin(), owner);
      expect(await page.getByRole('banner').getByRole('button', { name: 'Menu', exact: true }).isVisible()).toBe(false);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects', exact: true }).waitFor();
      await page
        .getByRole('row', { name: /Night Site/ })
        .getByRole('link', { name: 'Night Site' })
        .click();
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).click();
      const trail = page.getByRole('navigation', { name: 'Breadcrumbs' });
      await trail.getByRole('link', { name: 'Settings' }).waitFor();
      expect((await trail.getByRole('link').allTextContents()).map((x) => x.trim())).toEqual(["Theo Theme's workspace", 'Projects', 'Night Site', 'Settings']);
      expect(await trail.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
      // A crumb leads back up: the project's own page.
      await trail.getByRole('link', { name: 'Night Site' }).click();
      await page.waitForURL(/\/projects\/proj_[^/]+$/);
      await page.getByRole('button', { name: /Workspace/ }).click();
      // The switcher's list, not the deployments' status filter (a native select whose chosen option is selected too).
      expect(await page.getByRole('listbox').getByRole('option', { selected: true }).textContent()).toContain("Theo Theme's workspace");
      await page.keyboard.press('Escape');
      await page.screenshot({ path: join(ARTIFACTS, 'theme-desktop-light.png') });
      await expectAccessible(page, 'project page at 1280 px');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('moves nothing for a visitor who asked for reduced motion: drawer, menus, dialogs and toasts appear at once', async () => {
    /** The animation each animated element of the dashboard gets, on elements made to match their rules. */
    const animations = (page: Page) =>
      page.evaluate(() =>
        ['drawer', 'popover', 'modal-overlay', 'toast'].map((className) => {
          const el = document.createElement('div');
          el.className = className;
          el.setAttribute('data-entering', '');
          document.body.append(el);
          const name = getComputedStyle(el).animationName;
          el.remove();
          return `${className}: ${name}`;
        }),
      );
    const moving = await open(browser.browser, 'light');
    const still = await phonePage(browser.browser, [], { reducedMotion: 'reduce' });
    try {
      expect(await animations(moving.page)).toEqual(['drawer: slide-in', 'popover: pop-in', 'modal-overlay: fade-in', 'toast: pop-in']);
      await signInThroughDashboard(still.page, origin(), owner);
      expect(await animations(still.page)).toEqual(['drawer: none', 'popover: none', 'modal-overlay: none', 'toast: none']);
      expect(moving.errors).toEqual([]);
    } finally {
      await moving.context.close();
      await still.context.close();
    }
  });

  it('the delete dialog keeps focus inside, Escape closes it, and the result is a status toast; no <style> is injected', async () => {
    const { context, page, errors } = await open(browser.browser, 'light');
    try {
      const opener = page.getByRole('button', { name: 'Delete Night Site' });
      await opener.click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Type night-site to confirm').waitFor();
      // Focus starts in the confirmation box and never leaves the dialog, however far one tabs.
      const focusInDialog = () => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));
      expect(await focusInDialog()).toBe(true);
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Tab');
        expect(await focusInDialog()).toBe(true);
      }
      await page.keyboard.press('Shift+Tab');
      expect(await focusInDialog()).toBe(true);
      await expectAccessible(page, 'delete dialog');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      // Focus goes back to the button that opened it.
      expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);

      // Again, to the end: the toast says what happened, as a status message.
      await opener.click();
      expect(await dialog.getByLabel('Type night-site to confirm').inputValue()).toBe('');
      await dialog.getByLabel('Type night-site to confirm').fill('night-site');
      await dialog.getByRole('button', { name: 'Delete project' }).click();
      await page.getByRole('status').filter({ hasText: 'Project Night Site deleted' }).waitFor();
      await expectAccessible(page, 'toast');
      // React Aria added no <style> element the CSP would refuse (nor any other).
      expect(await page.evaluate(() => document.querySelectorAll('style').length)).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lets React Aria's iOS-only overscroll <style> in by its hash while a modal is open, and nothing else inline", async () => {
    await t.http().post('/projects').set(asUser(owner)).send({ name: 'Pocket Site', slug: 'pocket-site', type: 'static_site' }).expect(201);
    const errors: string[] = [];
    const { context, page } = await phonePage(browser.browser, errors, {
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
      hasTouch: true,
    });
    // React Aria's isIOS() reads navigator.userAgentData's platform first, then navigator.platform;
    // isWebKit() the user agent above. Chromium then takes RAC's mobile-WebKit path, as Safari on an iPhone does.
    await context.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined });
      Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'iPhone' });
      Object.defineProperty(Navigator.prototype, 'maxTouchPoints', { get: () => 5 });
    });
    try {
      await signInThroughDashboard(page, origin(), owner);
      const res = await page.reload();
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      // The policy is the strict one it was, with one hash added to style-src and nothing else.
      const csp = (await res!.allHeaders())['content-security-policy'];
      expect(csp.replace(/ 'sha256-[A-Za-z0-9+/]{43}='/, '')).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(csp).toMatch(/style-src 'self' 'sha256-[^']+';/);
      expect(await page.evaluate(() => document.querySelectorAll('style').length)).toBe(0);

      await page.getByRole('button', { name: 'Delete Pocket Site' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Type pocket-site to confirm').waitFor();
      // RAC took the iOS path (its <style> is there, the only one), and the browser applied it
      // rather than refusing it: a refused <style> stays in the DOM with no effect.
      const open = await page.evaluate(() => ({
        styles: [...document.querySelectorAll('style')].map((s) => s.textContent),
        page: getComputedStyle(document.body).overscrollBehaviorY,
        dialog: getComputedStyle(document.querySelector('[role="dialog"]')!).overscrollBehaviorY,
      }));
      expect(open).toEqual({ styles: [REACT_ARIA_OVERSCROLL_STYLE], page: 'contain', dialog: 'contain' });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      // Closing the modal takes the rule away again.
      expect(await page.evaluate(() => [document.querySelectorAll('style').length, getComputedStyle(document.body).overscrollBehaviorY])).toEqual([0, 'auto']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
