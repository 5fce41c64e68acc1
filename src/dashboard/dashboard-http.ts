import { createHash } from 'node:crypto';

import Negotiator from 'negotiator';

/** The dashboard's client routes live under this prefix, so they never collide with API paths. */
export const DASHBOARD_PREFIX = '/app';

/**
 * The one `<style>` element the dashboard lets in: React Aria's usePreventScroll prepends
 * it to the head while a modal is open, on iOS WebKit only (Safari scrolls the page behind
 * a modal unless `overscroll-behavior: contain` is in place before the touch starts, so it
 * cannot wait for element.style). Allowed by its hash, the same text on every response, so
 * index.html stays cacheable and nothing else inline gets in. dashboard-http.spec.ts reads
 * the text from the installed React Aria, so an update that changes it fails there first.
 */
export const REACT_ARIA_OVERSCROLL_STYLE = '@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}';

/**
 * The dashboard's Content-Security-Policy. Vite emits no inline script; React and uPlot
 * set styles through the CSSOM (element.style), which `style-src 'self'` allows, so no
 * 'unsafe-inline' is needed anywhere: the one hash is React Aria's rule above. Nothing is
 * loaded from another origin.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  `style-src 'self' 'sha256-${createHash('sha256').update(REACT_ARIA_OVERSCROLL_STYLE).digest('base64')}'`,
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  // Links to deployed sites must not leak dashboard paths (project and deployment ids).
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

/** Vite's hashed output: immutable, since a new build gets new names. */
export const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: always revalidated, so a deploy of the dashboard is seen at once. */
export const INDEX_CACHE = 'no-cache';

/** True when the client prefers an HTML page to JSON (a browser's navigation, not curl or an SDK). */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']) === 'text/html';
}

export type DashboardTarget = { kind: 'asset'; file: string } | { kind: 'index' } | { kind: 'redirect'; location: string } | { kind: 'none' };

/**
 * What a GET to `path` gets from the dashboard: a hashed asset, the app's index.html
 * (any other path under the prefix: the client router decides), a redirect of a
 * browser asking for `/`, or nothing (the API handles it).
 */
export function dashboardTarget(path: string, accept: string | undefined): DashboardTarget {
  if (path === '/') return prefersHtml(accept) ? { kind: 'redirect', location: `${DASHBOARD_PREFIX}/` } : { kind: 'none' };
  if (path === DASHBOARD_PREFIX) return { kind: 'redirect', location: `${DASHBOARD_PREFIX}/` };
  if (!path.startsWith(`${DASHBOARD_PREFIX}/`)) return { kind: 'none' };
  const rest = path.slice(DASHBOARD_PREFIX.length + 1);
  if (rest.startsWith('assets/')) {
    const file = rest.slice('assets/'.length);
    // Vite names assets flat (`index-Bx3k.js`): anything else is not one of them.
    return /^[A-Za-z0-9._-]+$/.test(file) && !file.startsWith('.') ? { kind: 'asset', file } : { kind: 'asset', file: '' };
  }
  return { kind: 'index' };
}
