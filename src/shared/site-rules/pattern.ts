/**
 * Path patterns of `_redirects` and `_headers` (the syntax Netlify and
 * Cloudflare Pages share): literal text, at most one `*` splat that matches any
 * characters including "/", and `:name` placeholders that match one whole
 * segment. Plus templates (destinations, header values) that use the captured
 * values as `:splat` and `:name`.
 *
 * Patterns are matched against the canonical request path of request-path.ts
 * (decoded once, NFC), so `/caf%C3%A9` in a rule and `/café` in a rule are the
 * same rule, and an encoded "/" or ".." can never be smuggled through either side.
 * `_redirects` matching is case-sensitive and exact about a trailing "/" (as
 * Cloudflare's is): `/blog/*` matches `/blog/` and `/blog/x` but not `/blog`.
 * `_headers` paths match as Netlify's do (compileHeaderPathPattern): case-insensitive,
 * a trailing "/" optional, `/blog/*` taking `/blog` too.
 *
 * Where we differ from Cloudflare: a placeholder must be a whole segment
 * (`/posts/:id`, not `/post-:id`), as on Netlify. That keeps every pattern a
 * regular expression without nested ambiguity, so no rule can make matching
 * slow (a splat next to placeholders inside one segment backtracks polynomially).
 */
import { parseRequestPath } from './request-path';

type Token = { kind: 'text'; raw: string } | { kind: 'splat' } | { kind: 'param'; name: string };

export interface PathPattern {
  /** As written in the file. */
  readonly source: string;
  /** Canonical path (parseRequestPath form) when the pattern has no splat and no placeholder. */
  readonly path?: string;
  /** Tested against "/" + canonical path; captures in `names` order. */
  readonly regex?: RegExp;
  /** Decoded literal text before the first splat or placeholder, with the leading "/". */
  readonly prefix: string;
  /** Decoded literal text after the last splat or placeholder (the whole path when there is none). */
  readonly suffix: string;
  /** Placeholder names in capture order; "splat" for the splat. */
  readonly names: readonly string[];
}

export type Captures = Readonly<Record<string, string>>;

const NAME = /^[A-Za-z]\w*/;
const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g;

function tokenize(raw: string, isName: (name: string) => boolean, withSplat: boolean): Token[] {
  const tokens: Token[] = [];
  let text = '';
  const flush = () => {
    if (text) tokens.push({ kind: 'text', raw: text });
    text = '';
  };
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '*' && withSplat) {
      flush();
      tokens.push({ kind: 'splat' });
      continue;
    }
    if (ch === ':') {
      const name = NAME.exec(raw.slice(i + 1))?.[0];
      if (name && isName(name)) {
        flush();
        tokens.push({ kind: 'param', name });
        i += name.length;
        continue;
      }
    }
    text += ch;
  }
  flush();
  return tokens;
}

/** The pattern, or what is wrong with it (phrased to follow "source …" / "path …"). */
export function compilePathPattern(raw: string): PathPattern | { error: string } {
  if (ABSOLUTE_URL.test(raw)) {
    return { error: 'is a full URL; rules for other domains are not supported, give a path starting with "/"' };
  }
  if (!raw.startsWith('/')) return { error: 'must be a path starting with "/"' };
  if (raw.startsWith('//')) return { error: 'starts with "//"; give a path starting with a single "/"' };
  const special = /[?#]/.exec(raw);
  if (special) return { error: `contains "${special[0]}"; query strings and fragments are not matched, remove them` };

  const tokens = tokenize(raw, () => true, true);
  const names: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === 'text') continue;
    if (token.kind === 'splat') {
      if (names.includes('splat')) return { error: 'has more than one "*"; only one splat is allowed' };
      names.push('splat');
      continue;
    }
    if (token.name === 'splat') return { error: 'uses ":splat" as a placeholder; that name is reserved for the value of "*"' };
    if (names.includes(token.name)) return { error: `uses the placeholder ":${token.name}" twice` };
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    const wholeSegment = before?.kind === 'text' && before.raw.endsWith('/') && (!after || (after.kind === 'text' && after.raw.startsWith('/')));
    if (!wholeSegment) return { error: `has ":${token.name}" inside a segment; a placeholder must be a whole segment, as in "/posts/:${token.name}"` };
    names.push(token.name);
  }

  // The same checks as a request path, with every placeholder standing for one plain character.
  const probe = tokens.map((t) => (t.kind === 'text' ? t.raw : 'x')).join('');
  const probePath = parseRequestPath(probe);
  if (probePath === null) {
    return {
      error:
        'is not a path any request could have (it has an empty segment, a "." or ".." segment, an encoded "/" or "\\", a control character or a malformed %-escape)',
    };
  }
  if (names.length === 0) return { source: raw, path: probePath, prefix: `/${probePath}`, suffix: `/${probePath}`, names };

  const decoded = tokens.map((t) => (t.kind === 'text' ? decodeURIComponent(t.raw).normalize('NFC') : undefined));
  const firstDynamic = tokens.findIndex((t) => t.kind !== 'text');
  const prefix = decoded.slice(0, firstDynamic).join('');
  const lastDynamic = tokens.length - 1 - [...tokens].reverse().findIndex((t) => t.kind !== 'text');
  const suffix = decoded.slice(lastDynamic + 1).join('');
  const body = tokens.map((t, i) => (t.kind === 'text' ? decoded[i]!.replace(REGEX_SPECIAL, '\\$&') : t.kind === 'splat' ? '(.*)' : '([^/]+)')).join('');
  return { source: raw, regex: new RegExp(`^${body}$`, 's'), prefix, suffix, names };
}

/** The captured values when the canonical path matches, else null. */
export function matchPathPattern(pattern: PathPattern, path: string): Captures | null {
  if (pattern.path !== undefined) return pattern.path === path ? {} : null;
  const full = `/${path}`;
  if (!full.startsWith(pattern.prefix)) return null;
  const m = pattern.regex!.exec(full);
  if (!m) return null;
  const captures: Record<string, string> = {};
  pattern.names.forEach((name, i) => (captures[name] = m[i + 1]));
  return captures;
}

/**
 * A `_headers` path, matched as Netlify matches it (its headers-parser's compiled
 * patterns): case-insensitively, a trailing "/" optional on either side, and a `*` that
 * is a whole last segment also matching the bare directory (`/blog/*` takes `/blog`,
 * `/blog/` and `/blog/a/b`, never `/blogger`).
 */
export interface HeaderPathPattern extends PathPattern {
  /** Plain paths: the canonical path lower-cased, without a trailing "/". */
  readonly key?: string;
  /** Patterns: tested against "/" + canonical path, case-insensitive. */
  readonly loose?: RegExp;
  /** Lower-case literal text before the first / after the last splat or placeholder, trailing "/" dropped. */
  readonly loosePrefix: string;
  readonly looseSuffix: string;
}

/** Regex syntax characters ("u" mode allows escaping only these; "/" needs none in a RegExp built from a string). */
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|]/g;

export function compileHeaderPathPattern(raw: string): HeaderPathPattern | { error: string } {
  const pattern = compilePathPattern(raw);
  if ('error' in pattern) return pattern;
  const dropSlash = (text: string) => (text.endsWith('/') ? text.slice(0, -1) : text);
  if (pattern.path !== undefined) {
    const key = dropSlash(pattern.path).toLowerCase();
    return { ...pattern, key, loosePrefix: `/${key}`, looseSuffix: `/${key}` };
  }
  const tokens = tokenize(raw, () => true, true);
  const decoded = tokens.map((t) => (t.kind === 'text' ? decodeURIComponent(t.raw).normalize('NFC') : ''));
  let body = '';
  tokens.forEach((t, i) => {
    if (t.kind === 'text') body += decoded[i].replace(REGEX_SYNTAX, '\\$&');
    else if (t.kind === 'param') body += '([^/]+)';
    else if (body.endsWith('/') && (i === tokens.length - 1 || decoded[i + 1].startsWith('/'))) body = `${body.slice(0, -1)}(?:/(.*))?`;
    else body += '(.*)';
  });
  body = dropSlash(body);
  return {
    ...pattern,
    loose: new RegExp(`^${body}/?$`, 'isu'),
    loosePrefix: dropSlash(pattern.prefix.toLowerCase()),
    looseSuffix: dropSlash(pattern.suffix.toLowerCase()),
  };
}

/** The captured values when the canonical path matches a `_headers` path (Netlify's way), else null. */
export function matchHeaderPathPattern(pattern: HeaderPathPattern, path: string): Captures | null {
  if (pattern.key !== undefined) {
    const bare = path.endsWith('/') ? path.slice(0, -1) : path;
    return bare.toLowerCase() === pattern.key ? {} : null;
  }
  const m = pattern.loose!.exec(`/${path}`);
  if (!m) return null;
  const captures: Record<string, string> = {};
  pattern.names.forEach((name, i) => (captures[name] = m[i + 1] ?? ''));
  return captures;
}

export type TemplatePart = { kind: 'text'; raw: string } | { kind: 'value'; name: string };

/**
 * A destination or header value split into literal text and the captures it
 * uses. `:name` is a capture only when the pattern defines it (a name runs to
 * the first character that is not a letter, digit or "_"); anything else, such
 * as the port in "https://example.com:8443/", stays literal.
 */
export function compileTemplate(raw: string, names: readonly string[]): TemplatePart[] {
  return tokenize(raw, (name) => names.includes(name), false).map((t) =>
    t.kind === 'text' ? { kind: 'text', raw: t.raw } : { kind: 'value', name: (t as { name: string }).name },
  );
}

/** Percent-encodes one path segment (RFC 3986 pchar stays readable). */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(?:3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g, decodeURIComponent);
}

/** Percent-encodes a captured value for a URL path: "/" inside a splat stays a separator. */
export function encodePathValue(value: string): string {
  return value.split('/').map(encodeSegment).join('/');
}

/**
 * A raw query string (without "?") fit for a Location header: as sent, except
 * that anything outside printable ASCII is percent-encoded (node's parser never
 * lets such bytes in; only direct callers can pass them).
 */
export function safeQuery(query: string): string {
  return query.replace(/[^\x21-\x7e]/gu, (ch) => (/\p{Cs}/u.test(ch) ? '' : encodeURIComponent(ch)));
}
