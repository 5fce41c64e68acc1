import { launchBrowser } from './helpers/browser';

/**
 * The browser suites must run on a machine with only Node and npm: this drives the
 * Chromium shipped inside `@sparticuz/chromium` even where Debian's is installed.
 */
describe('test browser without system packages', () => {
  it('launches the npm-packaged Chromium and renders a page', async () => {
    const browser = await launchBrowser('packaged');
    try {
      expect(browser.source).toBe('packaged');
      const page = await browser.browser.newPage();
      await page.setContent('<main><h1>rendered</h1></main>');
      expect(await page.textContent('h1')).toBe('rendered');
      expect(await page.evaluate(() => navigator.userAgent)).toMatch(/HeadlessChrome|Chrome/);
    } finally {
      await browser.close();
    }
  });
});
