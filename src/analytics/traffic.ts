/** Pure helpers of what one site answer counts as (unit-tested in traffic.spec.ts). */

/** Longest path kept; longer ones are cut (a scanner's junk should not make rows huge). */
export const MAX_PATH_LENGTH = 256;

/** The key that paths past a limit are counted under (MAX_PATHS_PER_FLUSH, compaction). */
export const OTHER_PATH = '(other)';

/**
 * The path a request is counted under: query string and fragment dropped, percent
 * escapes decoded when valid (so `/caf%C3%A9` and `/café` are one page), repeated
 * slashes collapsed, cut at MAX_PATH_LENGTH characters.
 */
export function normalisePath(url: string): string {
  let end = url.length;
  const q = url.indexOf('?');
  if (q !== -1) end = q;
  const h = url.indexOf('#');
  if (h !== -1 && h < end) end = h;
  let path = url.slice(0, end);
  if (path.includes('%')) {
    try {
      path = decodeURIComponent(path);
    } catch {
      // Malformed escapes: counted as sent.
    }
  }
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (!path.startsWith('/')) path = `/${path}`;
  // Control characters (a decoded %00, a newline) never reach a row or a terminal.
  path = path.replace(/[\u0000-\u001f\u007f]/g, '\ufffd');
  return path.length > MAX_PATH_LENGTH ? Array.from(path).slice(0, MAX_PATH_LENGTH).join('') : path;
}

/** 1..5 for 1xx..5xx. */
export function statusClass(status: number): number {
  return Math.min(5, Math.max(1, Math.floor(status / 100)));
}

/**
 * The referring site's host name, lower case, without port or `www.`; undefined when
 * there is none, it is not http(s), or it is the site itself (`ownHost`, the Host the
 * request came to, so navigation inside the site is not a referral).
 */
export function referrerHost(referer: string | undefined, ownHost: string | undefined): string | undefined {
  if (!referer) return undefined;
  let host: string;
  try {
    const url = new URL(referer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    host = url.hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (host.length === 0 || host.length > 253) return undefined;
  const own = ownHost?.toLowerCase().replace(/:\d+$/, '');
  if (host === own) return undefined;
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** UTC hour start (ms) of a moment. */
export function hourOf(ms: number): number {
  return ms - (ms % 3_600_000);
}

/** UTC day (YYYY-MM-DD) of a moment. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
