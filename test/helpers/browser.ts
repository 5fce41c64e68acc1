import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';

/**
 * Playwright, loaded outside jest's vm when the tests run (test/helpers/environment.js:
 * its client is several times faster there), by `require` in the benches.
 */
const { chromium } = ((globalThis as { requireOutsideVm?: (id: 'playwright-core') => unknown }).requireOutsideVm ?? require)(
  'playwright-core',
) as typeof import('playwright-core');

/** Debian's Chromium, when the machine has it; Playwright never downloads a browser here. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export type BrowserSource = 'system' | 'packaged';

/**
 * The browser the tests drive: CHROMIUM_PATH, else Debian's Chromium, else the Chromium
 * that `@sparticuz/chromium` ships inside its npm package (unpacked to /tmp on first
 * use, about 2 s), so `npm test` needs nothing but npm. `prefer: 'packaged'` skips the
 * first two (as does TEST_BROWSER=packaged), to prove the fallback works on a machine
 * that has both.
 */
export async function chromiumExecutable(prefer = process.env.TEST_BROWSER as BrowserSource | undefined): Promise<{ path: string; source: BrowserSource }> {
  if (prefer !== 'packaged') {
    const system = process.env.CHROMIUM_PATH ?? DEBIAN_CHROMIUM;
    if (existsSync(system)) return { path: system, source: 'system' };
    if (process.env.CHROMIUM_PATH) throw new Error(`Chromium not found at CHROMIUM_PATH=${system}`);
  }
  const packaged = (await import('@sparticuz/chromium')).default;
  return { path: await packaged.executablePath(), source: 'packaged' };
}

/** This process's environment with Debian's default locale and nothing that overrides it. */
function posixLocaleEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^(LANGUAGE|LC_[A-Z]+)$/.test(key)) env[key] = value;
  return { ...env, LANG: 'C.UTF-8' };
}

export const ARTIFACTS = join(__dirname, '..', 'artifacts');

/** The flags every headless Chromium of the tests and benches starts with (no sandbox in a container, nothing fetched in the background). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/**
 * Headless Chromium with the flags this sandbox needs (root: no sandbox; no network
 * but loopback: no background services). `*.localhost` resolves to 127.0.0.1 in
 * Chromium itself, so site hosts work without /etc/hosts; `mapToLoopback` sends other
 * names there too (e.g. `['*.example.test']`, through `--host-resolver-rules`), for
 * tests that need hosts under one parent domain that is not localhost.
 */
export async function launchBrowser(
  prefer?: BrowserSource,
  options: { mapToLoopback?: string[] } = {},
): Promise<{ browser: Browser; source: BrowserSource; close(): Promise<void> }> {
  const executable = await chromiumExecutable(prefer);
  await mkdir(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: executable.path,
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      ...(options.mapToLoopback?.length ? [`--host-resolver-rules=${options.mapToLoopback.map((pattern) => `MAP ${pattern} 127.0.0.1`).join(', ')}`] : []),
    ],
    // Chromium takes its language from the environment's locale. The tests run it under
    // Debian's default (C.UTF-8, CI's too), where Chromium up to 155 reports
    // navigator.language as "en-US@posix", a tag Intl refuses (156 says "en-US"; the
    // every-page suite asks for "en-US@posix" through a context's `locale`, as it does for
    // other languages). Set here, not inherited, so a developer's own LANG cannot change
    // what the suites see.
    env: posixLocaleEnv(),
  });
  return {
    browser,
    source: executable.source,
    async close() {
      await browser.close();
    },
  };
}

/**
 * The page does not scroll sideways at its viewport's width (375 px phones): on failure,
 * the page's width and the innermost elements that stick out, to find the culprit.
 */
export async function expectNoHorizontalScroll(page: Page, name: string): Promise<void> {
  const found = await page.evaluate(() => {
    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth <= width) return null;
    const out = [...document.body.querySelectorAll('*')].filter((el) => el.getBoundingClientRect().right > width + 0.5);
    const innermost = out.filter((el) => !out.some((other) => other !== el && el.contains(other)));
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${[...el.classList].map((c) => `.${c}`).join('')} (${Math.round(el.getBoundingClientRect().width)} px)`;
    return { width, scrollWidth, innermost: innermost.slice(0, 5).map(describe) };
  });
  expect({ page: name, overflow: found }).toEqual({ page: name, overflow: null });
}

/**
 * No serious or critical axe violation on the page, and nothing scrolls sideways (the
 * dashboard suites run at 375 px, a phone's width). Beside axe's default rules, WCAG 2.2's
 * target-size (touch targets of at least 24 px, issue 33), which axe leaves off by default.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await expectNoHorizontalScroll(page, name);
  // From the top of the page: scrolled down, the sticky top bar covers whatever passes under
  // it, which axe counts as a target too small (Chromium 156 left the webhooks form half
  // under it after a click further down). At the top, the bar covers nothing of the page.
  const scrolled = await page.evaluate(() => {
    const at = window.scrollY;
    window.scrollTo(0, 0);
    return at;
  });
  // A dialog or a toast fades in: axe measuring contrast mid-animation sees half-transparent
  // text. What a reader is left looking at is the end state, so that is what gets checked.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  const result = await new AxeBuilder({ page }).options({ rules: { 'target-size': { enabled: true } } }).analyze();
  await page.evaluate((y) => window.scrollTo(0, y), scrolled);
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect({ page: name, violations: bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`) }).toEqual({
    page: name,
    violations: [],
  });
}

/**
 * A page at a phone's width (375 × 800) whose console errors and uncaught exceptions are
 * pushed into `errors`, which the dashboard suites expect empty after each test. "Failed to
 * load resource" is left out: it is the browser reporting a 4xx the test asked for.
 */
export async function phonePage(
  browser: Browser,
  errors: string[],
  options: BrowserContextOptions & { timeout?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const { timeout = 15_000, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 375, height: 800 }, ...contextOptions });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page };
}

/**
 * The heading of where a signed-in user lands: the projects list, or (issue 33) the
 * onboarding page when their first workspace has no project yet and they may create one.
 */
export function landingHeading(page: Page): Locator {
  return page.getByRole('heading', { name: /^(Projects|Publish your first site)$/ });
}

/** Signs in through the dashboard's own form (at `origin`, e.g. http://127.0.0.1:PORT) and waits for the page it lands on. */
export async function signInThroughDashboard(page: Page, origin: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${origin}/app/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await landingHeading(page).waitFor();
}

/**
 * The sidebar's navigation ("Main"): at a phone's width it lives in a drawer behind the
 * header's Menu button, which this opens first; at a desktop's width it is always shown.
 */
export async function mainNavigation(page: Page): Promise<Locator> {
  const header = page.getByRole('banner');
  // The signed-in header first (right after signing in it may not be drawn yet), then whether its Menu button shows.
  await header.getByRole('button', { name: 'Account menu' }).waitFor();
  const menu = header.getByRole('button', { name: 'Menu', exact: true });
  if (await menu.isVisible()) {
    await menu.click();
    await page.getByRole('dialog', { name: 'Menu' }).waitFor();
  }
  return page.getByRole('navigation', { name: 'Main' });
}

/** Follows a section's link in the sidebar (Projects, API tokens, Security…). */
export async function goToSection(page: Page, name: string): Promise<void> {
  const nav = await mainNavigation(page);
  await nav.getByRole('link', { name, exact: true }).click();
}

/** Chooses a workspace in the sidebar's switcher (a React Aria Select, not a native one). */
export async function switchWorkspace(page: Page, name: string | RegExp): Promise<void> {
  await mainNavigation(page);
  await page.getByRole('button', { name: /Workspace/ }).click();
  await page.getByRole('option', { name }).click();
}

/** Signs out through the header's account menu. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
}

/**
 * Presses a button in the open confirmation dialog and waits until the dialog has closed
 * (the dashboard closes it when the API has answered). While a modal is open, React Aria
 * hides the page behind it from the accessibility tree, so a `getByRole` wait for a row to
 * be gone would pass at once, before the request has even been answered.
 */
export async function confirmInDialog(page: Page, name: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name }).click();
  await dialog.waitFor({ state: 'detached' });
}
