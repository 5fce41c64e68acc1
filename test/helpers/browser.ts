import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { type Browser, chromium } from 'playwright-core';

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

export const ARTIFACTS = join(__dirname, '..', 'artifacts');

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
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      ...(options.mapToLoopback?.length ? [`--host-resolver-rules=${options.mapToLoopback.map((pattern) => `MAP ${pattern} 127.0.0.1`).join(', ')}`] : []),
    ],
    // Chromium takes its language from the environment's locale; under C.UTF-8 (Debian's
    // default, CI's too) it reports navigator.language as "en-US@posix", a tag Intl
    // refuses (uPlot builds its number format from it when loaded). Give it a real one.
    env: { ...process.env, LANG: 'en_US.UTF-8', LANGUAGE: 'en_US' },
  });
  return {
    browser,
    source: executable.source,
    async close() {
      await browser.close();
    },
  };
}
