/**
 * `_headers`: the Cloudflare Pages file format, which Netlify reads too.
 *
 * A path pattern on its own line (pattern.ts: one `*` splat, whole-segment
 * `:placeholders`), then indented `Name: value` lines, or `! Name` to remove a
 * header an earlier block (or the server's default) set. Every block whose
 * pattern matches applies, in file order, as on Cloudflare: the first block that
 * sets a header replaces the server's value, later blocks append theirs with
 * ", ", and the same name twice in one block is joined the same way. Values may
 * use `:splat` and the placeholders (percent-encoded, so they stay valid header
 * text).
 *
 * A block's path may be a full URL (`https://example.com/*`, Cloudflare's): the block
 * then applies only to requests for that host (host-pattern.ts; the scheme is not
 * compared, as on Cloudflare, and `http://` is read like `https://`), and the host's
 * placeholders may be used in its values too.
 *
 * Where we differ from Cloudflare: unusable lines are refused with an error
 * naming the line (Cloudflare skips them), as are non-ASCII
 * values, headers that would break the answer or the connection (hop-by-hop
 * headers, Content-Length, Content-Encoding, Content-Range, ETag: ours differs
 * per encoding), and headers that act on something other than the visitor's
 * view of this one answer: Set-Cookie (cookies beside the gate's), redirects
 * outside `_redirects` (Location, Refresh), instructions to a proxy in front
 * (X-Accel-*, X-Sendfile, X-LiteSpeed-*, X-Envoy-*), Clear-Site-Data (it reaches
 * every site of the registrable domain), Alt-Svc, and the CDN purge tags the
 * server sets. `Vary` can be added to but not removed or replaced: the
 * server's own Vary (Accept-Encoding, Cookie) always stays.
 * Limits: Cloudflare's 100 blocks and 2,000 characters a line, and ours of
 * 8 KB of headers that one answer can get (MAX_HEADER_BYTES).
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';

import { compileHostPattern, type HostPattern, hostsCanMatchTogether, matchHostPattern } from './host-pattern';
import { type Captures, compileHeaderPathPattern, compileTemplate, type HeaderPathPattern, matchHeaderPathPattern, type TemplatePart } from './pattern';
import { lineProblem, type ParseResult, quote, type RuleError, RuleErrors, ruleLines } from './rule-file';

export const MAX_HEADER_RULES = 100;
export const MAX_HEADER_LINE_CHARS = 2000;
/**
 * Bytes of headers (`Name: value` plus CRLF) one answer may get from `_headers`.
 * nginx's default proxy buffer is 4 or 8 KB, Node's client limit 16 KB for a
 * whole head: past this, proxies and clients in front start failing answers.
 */
export const MAX_HEADER_BYTES = 8 * 1024;

const PROXY_DIRECTIVE = 'is an instruction to a proxy in front of the server (nginx, Apache, lighttpd, LiteSpeed, Envoy), not a header for visitors';
const REDIRECT = 'would redirect outside _redirects; write the redirect in _redirects, where the server checks it';
const PURGE_TAG = 'is set by the server so that purging a project reaches every cached answer of it';

/** Lower-case names a site may neither set nor remove, with the reason shown to its author. */
const REFUSED: ReadonlyMap<string, string> = new Map([
  ['connection', 'is a hop-by-hop header, managed by the server'],
  ['keep-alive', 'is a hop-by-hop header, managed by the server'],
  ['te', 'is a hop-by-hop header, managed by the server'],
  ['trailer', 'is a hop-by-hop header, managed by the server'],
  ['transfer-encoding', 'is a hop-by-hop header, managed by the server'],
  ['upgrade', 'is a hop-by-hop header, managed by the server'],
  ['content-length', 'is computed by the server from the file'],
  ['content-encoding', 'is set by the server when it sends a compressed copy'],
  ['content-range', 'is set by the server when it answers a range request'],
  ['etag', 'is set by the server, one per file and encoding; another value would break revalidation'],
  ['set-cookie', 'cannot be set by static files'],
  ['set-cookie2', 'cannot be set by static files'],
  ['location', REDIRECT],
  ['refresh', REDIRECT],
  ['x-sendfile', PROXY_DIRECTIVE],
  ['x-sendfile-type', PROXY_DIRECTIVE],
  ['x-lighttpd-send-file', PROXY_DIRECTIVE],
  ['clear-site-data', "could clear the cookies and storage of every site under the same domain, the gate's cookies included"],
  ['alt-svc', "would move visitors' connections to another host or port; the server manages connections"],
  ['cache-tag', PURGE_TAG],
  ['surrogate-key', PURGE_TAG],
]);

/** Lower-case prefixes of header families that proxies act on; see PROXY_DIRECTIVE. */
const REFUSED_PREFIXES: readonly (readonly [prefix: string, reason: string])[] = [
  ['proxy-', 'is a hop-by-hop header, managed by the server'],
  ['x-accel-', PROXY_DIRECTIVE],
  ['x-litespeed-', PROXY_DIRECTIVE],
  ['x-envoy-', PROXY_DIRECTIVE],
];

/** Lets another origin read answers with the visitor's cookies: refused on gated sites. */
const CORS_CREDENTIALS = 'access-control-allow-credentials';

export interface HeaderRule {
  readonly line: number;
  /** The block's first line as written (a path, or a full URL). */
  readonly source: string;
  readonly pattern: HeaderPathPattern;
  /** A block written for a full URL applies only to requests for this host; null: any host. */
  readonly host: HostPattern | null;
  /** In file order; names as written; `line` where each was set. */
  readonly set: readonly { name: string; value: TemplatePart[]; line: number }[];
  /** `Name: value` + CRLF of every header set, as written (placeholders at their written length). */
  readonly bytes: number;
  /** Lower-case names. */
  readonly remove: readonly string[];
}

export interface HeaderRules {
  readonly rules: readonly HeaderRule[];
  /** Whether any block names a host: then an answer's headers can depend on the request's host. */
  readonly hosts: boolean;
}

export const NO_HEADER_RULES: HeaderRules = { rules: [], hosts: false };

/**
 * What the matching blocks do to the server's headers: `set` replaces a header
 * (Vary: adds to it), `remove` deletes it. Names never appear in both.
 */
export interface HeaderChanges {
  readonly set: readonly (readonly [name: string, value: string])[];
  /** Lower-case. */
  readonly remove: readonly string[];
}

export const NO_HEADER_CHANGES: HeaderChanges = { set: [], remove: [] };

/**
 * Parses and checks a `_headers` file; every unusable line is an error.
 *
 * `served`: the reading of a deployment already live, made when the site is loaded. A
 * deployment accepted before a header was refused (issue 26) or before the 8 KB bound
 * existed must not lose its whole `_headers` (its CSP and framing rules with it) on
 * upgrade: a refused header's lines are left out, the rest stands, and the bound is
 * kept per answer by headersFor. Deploys always read strictly.
 */
export function parseHeaders(file: Uint8Array, options: { served?: boolean } = {}): ParseResult<HeaderRules> {
  const errors = new RuleErrors();
  const lines = ruleLines(file, '_headers', errors);
  if (!lines) return errors.result(NO_HEADER_RULES);
  const rules: HeaderRule[] = [];
  let current:
    | {
        line: number;
        source: string;
        pattern: HeaderPathPattern;
        host: HostPattern | null;
        set: HeaderRule['set'][number][];
        remove: string[];
        lines: number;
        bytes: number;
      }
    | undefined;
  // A block whose path line was refused: its header lines are not errors of their own.
  let skipping = false;
  let blocks = 0;
  const close = () => {
    // Both peers accept a path with nothing under it; it does nothing, so the deploy says so.
    if (current && current.lines === 0) {
      errors.warn(current.line, `path ${quote(current.source)} has no header lines under it, so it changes nothing`);
    } else if (current) {
      const { line, source, pattern, host, set, remove, bytes } = current;
      rules.push({ line, source, pattern, host, set, remove, bytes });
    }
    current = undefined;
  };

  lines.forEach(({ line, text, trimmed }) => {
    const problem = lineProblem(text, MAX_HEADER_LINE_CHARS);
    if (problem) {
      if (current) current.lines++;
      return errors.add(line, `line ${problem}`);
    }

    if (trimmed.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
      close();
      skipping = true;
      const block = compileBlockPath(trimmed);
      if ('error' in block) return errors.add(line, `path ${quote(trimmed)}${block.error}`);
      if (++blocks > MAX_HEADER_RULES) {
        if (blocks === MAX_HEADER_RULES + 1) errors.add(line, `is path block number ${blocks}; the limit is ${MAX_HEADER_RULES}`);
        return;
      }
      skipping = false;
      current = { line, source: trimmed, pattern: block.pattern, host: block.host, set: [], remove: [], lines: 0, bytes: 0 };
      return;
    }
    // Not a path, so a header line, indented or not: both peers read an unindented
    // "Name: value" under a path the same way, and nothing else could be meant.
    if (!current && !skipping && !/^\s/.test(text)) {
      return errors.add(line, `${quote(trimmed)} is neither a path (starting with "/") nor a "Name: value" line under a path`);
    }
    if (!current) {
      if (!skipping) errors.add(line, `${quote(trimmed)} comes before any path; start the block with a path such as "/*"`);
      return;
    }
    current.lines++;

    if (trimmed.startsWith('!')) {
      const name = trimmed.slice(1).trim();
      const bad = nameProblem(name);
      if (bad && options.served && refusal(name)) return;
      if (bad) return errors.add(line, bad);
      if (name.toLowerCase() === 'vary')
        return errors.add(line, 'cannot remove Vary: the server sets it when an answer depends on the request (compression, the gate)');
      current.remove.push(name.toLowerCase());
      return;
    }
    const colon = trimmed.indexOf(':');
    if (colon === -1) return errors.add(line, `${quote(trimmed)} is not a "Name: value" line`);
    const name = trimmed.slice(0, colon).trim();
    const value = trimmed.slice(colon + 1).trim();
    const bad = nameProblem(name);
    if (bad && options.served && refusal(name)) return;
    if (bad) return errors.add(line, bad);
    if (value === '') return errors.add(line, `header ${name} has no value`);
    if (/[^\x20-\x7e\t]/.test(value)) return errors.add(line, `the value of ${name} has characters outside printable ASCII; percent-encode them`);
    try {
      validateHeaderValue(name, value);
    } catch {
      return errors.add(line, `the value of ${name} is not a valid header value`);
    }
    const names = current.host === null ? current.pattern.names : [...current.host.names, ...current.pattern.names];
    current.set.push({ name, value: compileTemplate(value, names), line });
    current.bytes += name.length + value.length + 4;
  });
  close();
  const tooLarge = options.served ? undefined : headerBytesProblem(rules);
  if (tooLarge) errors.add(tooLarge.line, tooLarge.message);
  return errors.result({ rules, hosts: rules.some((r) => r.host !== null) });
}

const HTTP_URL = /^https?:\/\//i;
const OTHER_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A block's first line: a path, or an `http(s)://host/path` URL (a path of "/" when it
 * has none, as on Cloudflare). Errors follow `path "…"`: a leading space, or ":" and
 * the part at fault.
 */
function compileBlockPath(raw: string): { pattern: HeaderPathPattern; host: HostPattern | null } | { error: string } {
  const scheme = HTTP_URL.exec(raw);
  if (!scheme) {
    if (OTHER_URL.test(raw)) return { error: ' is a URL of another scheme; a block is a path ("/…") or an "https://host/…" URL' };
    const pattern = compileHeaderPathPattern(raw);
    return 'error' in pattern ? { error: ` ${pattern.error}` } : { pattern, host: null };
  }
  const rest = raw.slice(scheme[0].length);
  const end = rest.search(/[/?#]/);
  const host = compileHostPattern(end === -1 ? rest : rest.slice(0, end));
  if ('error' in host) return { error: `: the host ${host.error}` };
  // "?" or "#" right after the host: the path check names them.
  const path = end === -1 ? '/' : rest[end] === '/' ? rest.slice(end) : `/${rest.slice(end)}`;
  const pattern = compileHeaderPathPattern(path);
  if ('error' in pattern) return { error: `: the path ${pattern.error}` };
  if (host.names.includes('splat') && pattern.names.includes('splat')) {
    return {
      error:
        ': has "*" in both its host and its path; a block has one "*" (as on Cloudflare), so name the host\'s first label with a placeholder instead, as in "https://:sub.example.com/*"',
    };
  }
  const twice = host.names.find((name) => pattern.names.includes(name));
  if (twice) return { error: `: uses the placeholder ":${twice}" in both its host and its path; give them different names` };
  return { pattern, host };
}

/**
 * Whether two blocks can match one same path, under Netlify's matching (case and a
 * trailing "/" ignored). Exact when either is a plain path (its lower-case key stands
 * for every spelling of it); for two patterns, their lower-case literal prefixes and
 * suffixes, trailing "/" dropped, must agree (one a prefix, resp. suffix, of the
 * other): necessary for a common match, so never a false "no".
 */
export function canMatchTogether(a: HeaderPathPattern, b: HeaderPathPattern): boolean {
  if (a.key !== undefined && b.key !== undefined) return a.key === b.key;
  if (a.key !== undefined) return matchHeaderPathPattern(b, a.key) !== null;
  if (b.key !== undefined) return matchHeaderPathPattern(a, b.key) !== null;
  const prefixes = a.loosePrefix.startsWith(b.loosePrefix) || b.loosePrefix.startsWith(a.loosePrefix);
  return prefixes && (a.looseSuffix.endsWith(b.looseSuffix) || b.looseSuffix.endsWith(a.looseSuffix));
}

/**
 * Whether one request could match both blocks: their paths can (canMatchTogether), and
 * their hosts can (a block without a host matches every host).
 */
export function blocksCanMatchTogether(a: HeaderRule, b: HeaderRule): boolean {
  if (a.host !== null && b.host !== null && !hostsCanMatchTogether(a.host, b.host)) return false;
  return canMatchTogether(a.pattern, b.pattern);
}

/**
 * The most header bytes one answer could get, bounded from above: for each block,
 * its headers plus those of every block that can match a request together with it
 * (blocksCanMatchTogether). Exact for plain paths; for patterns an upper bound, so a
 * file is refused only where the bound passes MAX_HEADER_BYTES. Reported once, at
 * the block with the largest bound, naming the blocks counted with it.
 */
export function headerBytesProblem(rules: readonly HeaderRule[]): RuleError | undefined {
  let worst: { rule: HeaderRule; bytes: number; with: HeaderRule[] } | undefined;
  for (const rule of rules) {
    const together = rules.filter((other) => other === rule || blocksCanMatchTogether(rule, other));
    const bytes = together.reduce((sum, r) => sum + r.bytes, 0);
    if (bytes > MAX_HEADER_BYTES && (!worst || bytes > worst.bytes)) worst = { rule, bytes, with: together.filter((r) => r !== rule) };
  }
  if (!worst) return undefined;
  const others = worst.with.map((r) => r.line);
  const shown = others.length > 10 ? `${others.slice(0, 10).join(', ')} and ${others.length - 10} more` : others.join(', ');
  const what =
    others.length === 0 ? "this block's headers come" : `this block's headers and those of the blocks that can match the same paths (lines ${shown}) come`;
  return {
    line: worst.rule.line,
    message: `path ${quote(worst.rule.source)}: ${what} to ${worst.bytes} bytes; one answer can get at most ${MAX_HEADER_BYTES} bytes of headers from _headers`,
  };
}

/**
 * Lines a gated site may not have: CORS with credentials would let another
 * origin (a sibling site under the same domain is same-site, so the gate's
 * SameSite cookie goes along) read pages meant for visitors who unlocked the site.
 */
export function gatedHeaderProblems(rules: HeaderRules): RuleError[] {
  const problems: RuleError[] = [];
  for (const rule of rules.rules) {
    for (const { name, line } of rule.set) {
      if (name.toLowerCase() === CORS_CREDENTIALS) {
        problems.push({
          line,
          message: `${name} cannot be set on a gated site: it would let other origins read gated pages with the visitor's access cookie`,
        });
      }
    }
  }
  return problems;
}

function nameProblem(name: string): string | undefined {
  if (name === '') return 'has no header name';
  try {
    validateHeaderName(name);
  } catch {
    return `${quote(name)} is not a valid header name`;
  }
  const refused = refusal(name);
  return refused ? `${name} ${refused}` : undefined;
}

/** Why a (valid) header name may not be set or removed from `_headers`, if it may not. */
function refusal(name: string): string | undefined {
  const lower = name.toLowerCase();
  return REFUSED.get(lower) ?? REFUSED_PREFIXES.find(([prefix]) => lower.startsWith(prefix))?.[1];
}

/**
 * The combined effect of every block that matches the canonical request path (and,
 * for a block with a host, `host`: the request's, lower-case without a port, as
 * normaliseHost gives it; only read when `rules.hosts`).
 * Deploys bound the written headers to MAX_HEADER_BYTES an answer; only captures
 * (a long URL in `:splat`) can make the rendered ones larger, and a header that
 * would pass the limit is left out, its length known before it is built.
 */
export function headersFor(rules: HeaderRules, path: string, host = ''): HeaderChanges {
  if (rules.rules.length === 0) return NO_HEADER_CHANGES;
  // Lower-case name → [name as first written, value] or null (removed).
  const state = new Map<string, [string, string] | null>();
  const setHere = new Set<string>();
  let bytes = 0;
  for (const rule of rules.rules) {
    let captures = matchHeaderPathPattern(rule.pattern, path);
    if (!captures) continue;
    if (rule.host !== null) {
      const fromHost = matchHostPattern(rule.host, host);
      if (!fromHost) continue;
      if (rule.host.names.length > 0) captures = { ...fromHost, ...captures };
    }
    const encoded = encodeCaptures(captures);
    for (const name of rule.remove) state.set(name, null);
    for (const { name, value } of rule.set) {
      const lower = name.toLowerCase();
      const existing = state.get(lower);
      const join = setHere.has(lower) && existing;
      const cost = renderedLength(value, encoded) + (join ? 2 : name.length + 4);
      if (bytes + cost > MAX_HEADER_BYTES) continue;
      bytes += cost;
      const rendered = render(value, encoded);
      state.set(lower, join ? [existing[0], `${existing[1]}, ${rendered}`] : [name, rendered]);
      setHere.add(lower);
    }
  }
  const set: [string, string][] = [];
  const remove: string[] = [];
  for (const [lower, entry] of state) {
    if (entry) set.push(entry);
    else remove.push(lower);
  }
  return { set, remove };
}

function encodeCaptures(captures: Captures): Captures {
  const out: Record<string, string> = {};
  for (const name in captures) out[name] = encodeURI(captures[name]);
  return out;
}

function renderedLength(parts: readonly TemplatePart[], encoded: Captures): number {
  let length = 0;
  for (const part of parts) length += part.kind === 'text' ? part.raw.length : (encoded[part.name] ?? '').length;
  return length;
}

function render(parts: readonly TemplatePart[], encoded: Captures): string {
  let out = '';
  for (const part of parts) out += part.kind === 'text' ? part.raw : (encoded[part.name] ?? '');
  return out;
}

/**
 * Applies changes to the server's headers (a flat [name, value, name, value…]
 * list, the form writeHead takes). A set header replaces the server's, except
 * Vary, whose tokens are merged so the server's own stay.
 */
export function applyHeaderChanges(base: readonly string[], changes: HeaderChanges): string[] {
  if (changes.set.length === 0 && changes.remove.length === 0) return [...base];
  const replaced = new Set([...changes.remove, ...changes.set.map(([n]) => n.toLowerCase()).filter((n) => n !== 'vary')]);
  const out: string[] = [];
  let vary: string | undefined;
  for (let i = 0; i < base.length; i += 2) {
    const lower = base[i].toLowerCase();
    if (lower === 'vary') vary = vary === undefined ? base[i + 1] : mergeVary(vary, base[i + 1]);
    else if (!replaced.has(lower)) out.push(base[i], base[i + 1]);
  }
  for (const [name, value] of changes.set) {
    if (name.toLowerCase() === 'vary') vary = vary === undefined ? value : mergeVary(vary, value);
    else out.push(name, value);
  }
  if (vary !== undefined) out.push('Vary', vary);
  return out;
}

/** Vary values merged: tokens of both, once each (case-insensitive), "*" absorbing the rest. */
export function mergeVary(...values: string[]): string {
  const seen = new Map<string, string>();
  for (const value of values) {
    for (const token of value.split(',')) {
      const t = token.trim();
      if (t && !seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
    }
  }
  return seen.has('*') ? '*' : [...seen.values()].join(', ');
}

/** Headers that decide who may store an answer and for how long. */
const CACHING = new Set(['cache-control', 'cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control', 'expires', 'pragma']);

/**
 * The changes that may apply to an answer of a gated site: nothing that touches
 * caching survives, so `Cache-Control: private, no-store` stays and no shared
 * cache keeps a page meant for visitors who unlocked the site. (`Vary: Cookie`
 * cannot be removed by any rule, see applyHeaderChanges.) Nor does CORS with
 * credentials (gatedHeaderProblems): deploys to a gated project refuse it, and
 * this drops it from deployments made before the gate was switched on.
 */
export function gatedHeaderChanges(changes: HeaderChanges): HeaderChanges {
  return {
    set: changes.set.filter(([name]) => !CACHING.has(name.toLowerCase()) && name.toLowerCase() !== CORS_CREDENTIALS),
    remove: changes.remove.filter((name) => !CACHING.has(name)),
  };
}

/**
 * The changes that may apply to an answer at a preview address: none to X-Robots-Tag,
 * whose `noindex` there keeps crawlers off builds nobody published (a `_headers` meant for
 * the live site would lift it). The same object when there is nothing to drop.
 */
export function previewHeaderChanges(changes: HeaderChanges): HeaderChanges {
  const robots = (name: string) => name.toLowerCase() === 'x-robots-tag';
  if (!changes.set.some(([name]) => robots(name)) && !changes.remove.some(robots)) return changes;
  return { set: changes.set.filter(([name]) => !robots(name)), remove: changes.remove.filter((name) => !robots(name)) };
}
