/**
 * Request paths on a site: from the request-target to manifest keys.
 *
 * The result uses the canonical form of src/deployments/file-path.ts (NFC, no
 * leading "/"), so a lookup is a plain string comparison. A path that could mean
 * more than one thing, or reach outside the site, gives null: the router answers
 * 404, never a file chosen by guessing.
 */

const FORBIDDEN_IN_SEGMENT = /[/\\\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The site-relative path of a request-target (`/a/b%20c.html?x=1` → `a/b c.html`),
 * or null when it is not a path that any deployed file could have.
 *
 * - Only origin-form targets (starting "/"); the query and fragment are dropped.
 * - Each segment is percent-decoded exactly once, after splitting on "/", so "%2F"
 *   cannot create a segment; a decoded "/" or "\" gives null, as do malformed
 *   escapes and escapes that are not UTF-8 ("%E9" alone).
 * - "." and ".." segments (also as "%2e"), empty segments ("a//b"), control
 *   characters and unpaired surrogates give null: nothing is resolved or
 *   collapsed silently.
 * - A trailing "/" is kept ("dir/"), and "/" is "".
 * - Raw non-ASCII characters are taken as the Unicode characters they are
 *   (node's HTTP parser refuses them on the wire, so only direct callers send them).
 */
export function parseRequestPath(rawUrl: string): string | null {
  if (typeof rawUrl !== 'string') return null;
  const end = rawUrl.search(/[?#]/);
  const target = end === -1 ? rawUrl : rawUrl.slice(0, end);
  if (!target.startsWith('/')) return null;

  const raw = target.slice(1).split('/');
  const segments: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw[i]).normalize('NFC');
    } catch {
      return null;
    }
    if (segment === '' && i < raw.length - 1) return null;
    if (segment === '.' || segment === '..') return null;
    if (FORBIDDEN_IN_SEGMENT.test(segment) || LONE_SURROGATE.test(segment)) return null;
    segments.push(segment);
  }
  return segments.join('/');
}

/**
 * Manifest keys to try for a parsed request path, in order ("clean URLs"):
 * '' → index.html; 'dir/' → dir/index.html; 'about' → about, about.html,
 * about/index.html. A name ending in .html/.htm is only itself; any other name,
 * even with a dot, also tries the fallbacks, so versioned directories such as
 * "docs/v1.2" still find their index.html.
 */
export function candidatePaths(path: string): string[] {
  if (path === '' || path.endsWith('/')) return [`${path}index.html`];
  if (/\.html?$/i.test(path)) return [path];
  return [path, `${path}.html`, `${path}/index.html`];
}

/**
 * Whether the file name carries a content hash, so its content can never change
 * under that name and may be cached for a long time ("immutable").
 *
 * A false positive would hide a user's update behind caches for as long as they
 * keep it, a false negative only costs a revalidation, so this errs towards false:
 * the hash must be a separate "."- or "-"-delimited part of the name, not its
 * first part, before the extension (app.3f9a8c1b.js, main-5d41402abc4b2a76.css,
 * index-BfXk2Q9a.js, 787.8c1e2f3a.chunk.js, main.3f9a8c1b.js.map), and look random:
 * - lower-case hex, 8+ characters, with letters and digits alternating at least
 *   twice (not "20240101", "cafe2024" or "deadbeef");
 * - or [A-Za-z0-9_], 8+ characters, with upper case, lower case and a digit, that
 *   changes character class often (not "DSC01234", "iPhone12Pro", "1920x1080").
 * Hashes that fail this (esbuild's upper-case "UWHSAZ6F", Vite hashes containing
 * "-") are simply served with the default revalidating Cache-Control.
 */
export function isHashedAssetPath(path: string): boolean {
  // A leading dot hides a file; it does not start a part ('.3f9a8c1b.js' is all hash).
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/^\.+/, '');
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return false;
  return name.slice(0, dot).split(/[.-]/).slice(1).some(looksLikeHash);
}

function looksLikeHash(part: string): boolean {
  if (part.length < 8) return false;
  if (/^[0-9a-f]+$/.test(part)) return runs(part, /[0-9]/) >= 3;
  if (/^[A-Za-z0-9_]+$/.test(part) && /[0-9]/.test(part) && /[A-Z]/.test(part) && /[a-z]/.test(part)) {
    return runs(part, /[0-9]/, /[A-Z]/, /[a-z]/) >= part.length * 0.6;
  }
  return false;
}

/** How many runs of characters of the same class the text has (a class per pattern, plus "other"). */
function runs(text: string, ...classes: RegExp[]): number {
  const classOf = (ch: string) => classes.findIndex((c) => c.test(ch));
  let count = 0;
  let previous: number | undefined;
  for (const ch of text) {
    const current = classOf(ch);
    if (current !== previous) count++;
    previous = current;
  }
  return count;
}
