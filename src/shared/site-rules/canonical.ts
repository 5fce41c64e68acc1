/**
 * Canonical URLs for HTML pages, as Cloudflare Pages serves them ("Serving
 * Pages": Route matching; the asset server in cloudflare/workers-sdk):
 *
 * - `/about.html` → 308 `/about`, and `/about/index.html` → 308 `/about/`;
 * - `/about` serves `about.html`; when only `about/index.html` exists it is a
 *   308 to `/about/` (so relative links in that page resolve inside `about/`);
 * - `/about/` serves `about/index.html`; when only `about.html` exists it is a
 *   308 to `/about`;
 * - every redirect keeps the query string; any other file is served as named.
 *
 * A miss goes on to not-found.ts. Where we differ: `/about/index` only
 * redirects to `/about/` when `about/index.html` exists (Cloudflare redirects
 * unconditionally, then answers 404), and a file named `.html` inside a
 * directory is served rather than redirected to its directory (Cloudflare's
 * noted FIXME). Following redirects always ends within a few steps and every
 * file is reachable; canonical.spec.ts checks both for random sets of files.
 */
import { notFoundAnswer } from './not-found';
import { encodePathValue, safeQuery } from './pattern';
import { candidatePaths } from './request-path';

export type SiteAnswer = { kind: 'file'; path: string; status: 200 | 404 } | { kind: 'redirect'; location: string; status: 308 } | { kind: 'not_found' };

type Found = { kind: 'file'; path: string } | { kind: 'redirect'; to: string };

function canonicalTarget(path: string, has: (path: string) => boolean): Found | null {
  if (path === '' || path.endsWith('/')) {
    if (has(`${path}index.html`)) return { kind: 'file', path: `${path}index.html` };
    // `/about/index/` → `/about/` only when that answers (as `/about/index` below): a redirect
    // to nothing would chain through every `index/` of the path before its 404.
    if ((path === 'index/' || path.endsWith('/index/')) && has(`${path.slice(0, -'index/'.length)}index.html`))
      return { kind: 'redirect', to: path.slice(0, -'index/'.length) };
    if (path !== '' && has(`${path.slice(0, -1)}.html`)) return { kind: 'redirect', to: path.slice(0, -1) };
    return null;
  }
  if (has(path)) {
    if (!path.endsWith('.html')) return { kind: 'file', path };
    const stem = path.slice(0, -'.html'.length);
    if (stem === 'index' || stem.endsWith('/index')) return { kind: 'redirect', to: stem.slice(0, -'index'.length) };
    // A file named ".html", or one whose extensionless name is another file, keeps its name.
    if (stem === '' || stem.endsWith('/') || has(stem)) return { kind: 'file', path };
    return { kind: 'redirect', to: stem };
  }
  if ((path === 'index' || path.endsWith('/index')) && has(`${path}.html`)) return { kind: 'redirect', to: path.slice(0, -'index'.length) };
  if (has(`${path}.html`)) return { kind: 'file', path: `${path}.html` };
  if (has(`${path}/index.html`)) return { kind: 'redirect', to: `${path}/` };
  return null;
}

/**
 * The file or canonical redirect for a request path, or null when no file
 * answers it. `path` is parseRequestPath's canonical form, `query` the raw query
 * string without "?".
 */
export function resolveCanonical(path: string, query: string, has: (path: string) => boolean): SiteAnswer | null {
  const found = canonicalTarget(path, has);
  if (!found) return null;
  if (found.kind === 'file') return { kind: 'file', path: found.path, status: 200 };
  return { kind: 'redirect', status: 308, location: `/${encodePathValue(found.to)}${query ? `?${safeQuery(query)}` : ''}` };
}

/** What a GET or HEAD of a site answers when no `_redirects` rule applied: a file, a redirect, a 404 page or nothing. */
export function resolveSitePath(path: string, query: string, method: string, has: (path: string) => boolean): SiteAnswer {
  return resolveCanonical(path, query, has) ?? notFoundAnswer(path, method, has);
}

/**
 * Whether a file answers the path (served or canonically redirected to): the
 * test `_redirects` shadowing needs (a rule without "!" yields to such a file).
 */
export function pathHasFile(path: string, has: (path: string) => boolean): boolean {
  return canonicalTarget(path, has) !== null;
}

/**
 * The file a `_redirects` rewrite (200 or 404) serves: the path itself, else
 * `.html` and `/index.html` variants, without canonical redirects (the address
 * bar keeps the URL the visitor asked for).
 */
export function rewriteTargetFile(path: string, has: (path: string) => boolean): string | undefined {
  return candidatePaths(path).find(has);
}
