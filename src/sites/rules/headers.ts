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
 * Where we differ from Cloudflare: unusable lines are refused with an error
 * naming the line (Cloudflare skips them), as are full-URL patterns, non-ASCII
 * values, and headers that would break the answer or the connection:
 * hop-by-hop headers, Content-Length, Content-Encoding, Content-Range, ETag
 * (ours differs per encoding) and Set-Cookie (a static file must not set
 * cookies on the gate's domain). `Vary` can be added to but not removed or
 * replaced: the server's own Vary (Accept-Encoding, Cookie) always stays.
 * Limits are Cloudflare's: 100 blocks, 2,000 characters a line.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';

import { type Captures, compilePathPattern, compileTemplate, matchPathPattern, type PathPattern, type TemplatePart } from './pattern';
import { lineProblem, type ParseResult, quote, RuleErrors, ruleLines } from './rule-file';

export const MAX_HEADER_RULES = 100;
export const MAX_HEADER_LINE_CHARS = 2000;

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
]);

export interface HeaderRule {
  readonly line: number;
  readonly pattern: PathPattern;
  /** In file order; names as written. */
  readonly set: readonly { name: string; value: TemplatePart[] }[];
  /** Lower-case names. */
  readonly remove: readonly string[];
}

export interface HeaderRules {
  readonly rules: readonly HeaderRule[];
}

export const NO_HEADER_RULES: HeaderRules = { rules: [] };

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

/** Parses and checks a `_headers` file; every unusable line is an error. */
export function parseHeaders(file: Uint8Array): ParseResult<HeaderRules> {
  const errors = new RuleErrors();
  const lines = ruleLines(file, '_headers', errors);
  if (!lines) return errors.result(NO_HEADER_RULES);
  const rules: HeaderRule[] = [];
  let current: { line: number; pattern: PathPattern; set: HeaderRule['set'][number][]; remove: string[]; lines: number } | undefined;
  // A block whose path line was refused: its header lines are not errors of their own.
  let skipping = false;
  let blocks = 0;
  const close = () => {
    if (current && current.lines === 0) {
      errors.add(current.line, `path ${quote(current.pattern.source)} has no header lines under it; add indented "Name: value" lines`);
    } else if (current) rules.push({ line: current.line, pattern: current.pattern, set: current.set, remove: current.remove });
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
      const pattern = compilePathPattern(trimmed);
      if ('error' in pattern) return errors.add(line, `path ${quote(trimmed)} ${pattern.error}`);
      if (++blocks > MAX_HEADER_RULES) {
        if (blocks === MAX_HEADER_RULES + 1) errors.add(line, `is path block number ${blocks}; the limit is ${MAX_HEADER_RULES}`);
        return;
      }
      skipping = false;
      current = { line, pattern, set: [], remove: [], lines: 0 };
      return;
    }
    if (!/^\s/.test(text)) {
      if (!current) return errors.add(line, `${quote(trimmed)} is neither a path (starting with "/") nor an indented "Name: value" line`);
      current.lines++;
      return errors.add(line, `${quote(trimmed)} is not indented; indent the header lines under their path`);
    }
    if (!current) {
      if (!skipping) errors.add(line, `${quote(trimmed)} comes before any path; start the block with a path such as "/*"`);
      return;
    }
    current.lines++;

    if (trimmed.startsWith('!')) {
      const name = trimmed.slice(1).trim();
      const bad = nameProblem(name);
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
    if (bad) return errors.add(line, bad);
    if (value === '') return errors.add(line, `header ${name} has no value`);
    if (/[^\x20-\x7e\t]/.test(value)) return errors.add(line, `the value of ${name} has characters outside printable ASCII; percent-encode them`);
    try {
      validateHeaderValue(name, value);
    } catch {
      return errors.add(line, `the value of ${name} is not a valid header value`);
    }
    current.set.push({ name, value: compileTemplate(value, current.pattern.names) });
  });
  close();
  return errors.result({ rules });
}

function nameProblem(name: string): string | undefined {
  if (name === '') return 'has no header name';
  try {
    validateHeaderName(name);
  } catch {
    return `${quote(name)} is not a valid header name`;
  }
  const lower = name.toLowerCase();
  const refused = REFUSED.get(lower) ?? (lower.startsWith('proxy-') ? 'is a hop-by-hop header, managed by the server' : undefined);
  return refused ? `${name} ${refused}` : undefined;
}

/** The combined effect of every block that matches the canonical request path. */
export function headersFor(rules: HeaderRules, path: string): HeaderChanges {
  if (rules.rules.length === 0) return NO_HEADER_CHANGES;
  // Lower-case name → [name as first written, value] or null (removed).
  const state = new Map<string, [string, string] | null>();
  const setHere = new Set<string>();
  for (const rule of rules.rules) {
    const captures = matchPathPattern(rule.pattern, path);
    if (!captures) continue;
    for (const name of rule.remove) state.set(name, null);
    for (const { name, value } of rule.set) {
      const lower = name.toLowerCase();
      const rendered = render(value, captures);
      const existing = state.get(lower);
      state.set(lower, setHere.has(lower) && existing ? [existing[0], `${existing[1]}, ${rendered}`] : [name, rendered]);
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

function render(parts: readonly TemplatePart[], captures: Captures): string {
  let out = '';
  for (const part of parts) out += part.kind === 'text' ? part.raw : encodeURI(captures[part.name] ?? '');
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
 * cannot be removed by any rule, see applyHeaderChanges.)
 */
export function gatedHeaderChanges(changes: HeaderChanges): HeaderChanges {
  return {
    set: changes.set.filter(([name]) => !CACHING.has(name.toLowerCase())),
    remove: changes.remove.filter((name) => !CACHING.has(name)),
  };
}
