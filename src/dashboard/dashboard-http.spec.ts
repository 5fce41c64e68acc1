import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DASHBOARD_CSP, dashboardTarget, prefersHtml, REACT_ARIA_OVERSCROLL_STYLE } from './dashboard-http';

describe('dashboard routing', () => {
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

  it('tells a browser navigation from an API client', () => {
    expect(prefersHtml(browser)).toBe(true);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
  });

  it('sends a browser at / to the app and leaves / to the API otherwise', () => {
    expect(dashboardTarget('/', browser)).toEqual({ kind: 'redirect', location: '/app/' });
    expect(dashboardTarget('/', '*/*')).toEqual({ kind: 'none' });
    expect(dashboardTarget('/app', '*/*')).toEqual({ kind: 'redirect', location: '/app/' });
  });

  it('answers every client route under /app with the index, and hashed files as assets', () => {
    expect(dashboardTarget('/app/', browser)).toEqual({ kind: 'index' });
    expect(dashboardTarget('/app/w/ws_1/projects/proj_2', undefined)).toEqual({ kind: 'index' });
    expect(dashboardTarget('/app/assets/index-Bx3k9.js', undefined)).toEqual({ kind: 'asset', file: 'index-Bx3k9.js' });
    expect(dashboardTarget('/app/assets/../../package.json', undefined)).toEqual({ kind: 'asset', file: '' });
    expect(dashboardTarget('/app/assets/.env', undefined)).toEqual({ kind: 'asset', file: '' });
  });

  it('leaves API paths alone', () => {
    for (const path of ['/projects', '/application', '/apps/x', '/health', '/docs']) expect(dashboardTarget(path, browser)).toEqual({ kind: 'none' });
  });

  it("allows React Aria's iOS overscroll <style> by the hash of the text the installed React Aria inserts, and no other inline style", () => {
    // The ES module Vite bundles: the text is a template literal assigned to the element's textContent, then trimmed.
    const source = readFileSync(join(__dirname, '../../node_modules/react-aria/dist/private/overlays/usePreventScroll.mjs'), 'utf8');
    const inserted = /style\.textContent = `([^`]*)`\.trim\(\)/.exec(source);
    expect(inserted).not.toBeNull();
    expect(inserted![1].trim()).toBe(REACT_ARIA_OVERSCROLL_STYLE);
    const hash = createHash('sha256').update(REACT_ARIA_OVERSCROLL_STYLE).digest('base64');
    const styleSrc = DASHBOARD_CSP.split('; ').find((d) => d.startsWith('style-src '));
    expect(styleSrc).toBe(`style-src 'self' 'sha256-${hash}'`);
    expect(DASHBOARD_CSP).not.toContain('unsafe-');
    expect(DASHBOARD_CSP).not.toContain('nonce-');
  });
});
