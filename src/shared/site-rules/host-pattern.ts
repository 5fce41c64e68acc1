/**
 * The host of a `_headers` block written as a full URL (`https://example.com/*`,
 * `https://:sub.example.com/docs`, `https://*.example.com/`), Cloudflare Pages' way of
 * attaching headers to one domain.
 *
 * A host is dot-separated labels. A label is literal text (any letter case, IDN as
 * written or in punycode), a `:name` placeholder that matches one whole label, or, as the
 * first label only, `*`, which matches one or more labels (`*.example.com` takes
 * `a.example.com` and `a.b.example.com`, not `example.com`). Cloudflare lets a placeholder
 * or `*` share a label with text; we do not, as for path segments (pattern.ts): every
 * pattern stays a regular expression without nested ambiguity. A port, credentials or an
 * IP literal are refused (Cloudflare refuses ports too; the router never serves a site on
 * an IP address).
 *
 * Matched against the host the router resolved (lower-case, no port, no trailing dot:
 * host.ts normaliseHost), so a rule written in capitals or with a trailing dot still matches.
 */
import type { Captures } from './pattern';

export interface HostPattern {
  /** As written. */
  readonly source: string;
  /** The lower-case ASCII host when it has no placeholder and no `*`. */
  readonly host?: string;
  /** Otherwise: tested against the lower-case host; captures in `names` order. */
  readonly regex?: RegExp;
  /** Placeholder names in capture order; "splat" for `*`. */
  readonly names: readonly string[];
  /** Lower-case literal text before the first / after the last placeholder or `*` (the 8 KB bound's overlap test). */
  readonly prefix: string;
  readonly suffix: string;
}

const PLACEHOLDER = /^:([A-Za-z]\w*)$/;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|-]/g;

/** The pattern, or what is wrong with it (phrased to follow "path "https://…" has a host that …"). */
export function compileHostPattern(raw: string): HostPattern | { error: string } {
  if (raw === '') return { error: 'is empty; write the host after "https://"' };
  if (/[@\\\s]/.test(raw)) return { error: 'contains "@", "\\" or a space; give only the host, as in "https://example.com/*"' };
  if (raw.startsWith('[')) return { error: 'is an IP address; sites are served by name, never on an address' };
  const written = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  const labels = written.split('.');
  const last = labels[labels.length - 1];
  if (/:\d*$/.test(last)) return { error: 'has a port; a host rule matches every port (as on Cloudflare), remove it' };

  const names: string[] = [];
  const kinds: ('text' | 'param' | 'splat')[] = [];
  for (const [i, label] of labels.entries()) {
    if (label === '') return { error: 'has an empty label (".." or a leading "."); give a host such as "example.com"' };
    const placeholder = PLACEHOLDER.exec(label);
    if (placeholder) {
      const name = placeholder[1];
      if (name === 'splat') return { error: 'uses ":splat" as a placeholder; that name is reserved for the value of "*"' };
      if (names.includes(name)) return { error: `uses the placeholder ":${name}" twice` };
      names.push(name);
      kinds.push('param');
    } else if (label === '*') {
      if (i !== 0) return { error: 'has "*" after its first label; "*" can only stand for the first labels, as in "*.example.com"' };
      names.push('splat');
      kinds.push('splat');
    } else if (label.includes('*')) {
      return { error: 'has "*" inside a label; "*" must be a whole first label, as in "*.example.com"' };
    } else if (label.includes(':')) {
      return { error: 'has ":" inside a label; a placeholder must be a whole label, as in "https://:sub.example.com/"' };
    } else kinds.push('text');
  }

  // The WHATWG URL parser gives the ASCII (punycode), lower-case form of each literal label,
  // with every placeholder and "*" standing for one plain label.
  const probe = labels.map((label, i) => (kinds[i] === 'text' ? label : 'x')).join('.');
  let ascii: string[];
  try {
    ascii = new URL(`http://${probe}/`).hostname.split('.');
  } catch {
    return { error: 'is not a valid host name' };
  }
  // An IPv4 address, in any of the forms the URL parser reads ("1.2", "0x7f.1"), is rewritten to four numbers.
  if (ascii.length !== labels.length || /^\d+$/.test(ascii[ascii.length - 1])) {
    return { error: 'is an IP address or not a valid host name; sites are served by name' };
  }
  const literal = ascii.map((label, i) => (kinds[i] === 'text' ? label : undefined));
  const bad = literal.find((label) => label !== undefined && !LABEL.test(label));
  if (bad !== undefined) return { error: `has the label ${JSON.stringify(bad)}, which no host name can have` };

  if (names.length === 0) {
    const host = ascii.join('.');
    if (host.length > 253) return { error: 'is longer than 253 characters, which no host name can be' };
    return { source: raw, host, names, prefix: host, suffix: host };
  }
  const parts = labels.map((_, i) => (kinds[i] === 'param' ? '([^.]+)' : kinds[i] === 'splat' ? '(.+)' : literal[i]!.replace(REGEX_SYNTAX, '\\$&')));
  const firstDynamic = kinds.findIndex((k) => k !== 'text');
  const lastDynamic = kinds.length - 1 - [...kinds].reverse().findIndex((k) => k !== 'text');
  const prefix = firstDynamic === 0 ? '' : `${literal.slice(0, firstDynamic).join('.')}.`;
  const suffix = lastDynamic === kinds.length - 1 ? '' : `.${literal.slice(lastDynamic + 1).join('.')}`;
  return { source: raw, regex: new RegExp(`^${parts.join('\\.')}$`), names, prefix, suffix };
}

const NO_CAPTURES: Captures = Object.freeze({});

/** The captured values when `host` (lower-case, no port: normaliseHost's form) matches, else null. */
export function matchHostPattern(pattern: HostPattern, host: string): Captures | null {
  if (pattern.host !== undefined) return pattern.host === host ? NO_CAPTURES : null;
  const m = pattern.regex!.exec(host);
  if (!m) return null;
  const captures: Record<string, string> = {};
  pattern.names.forEach((name, i) => (captures[name] = m[i + 1]));
  return captures;
}

/**
 * Whether some host could match both patterns. Exact when either is a plain host; for two
 * patterns, their literal prefixes (resp. suffixes) must agree, one a prefix (resp. suffix)
 * of the other: necessary for a common match, so never a false "no".
 */
export function hostsCanMatchTogether(a: HostPattern, b: HostPattern): boolean {
  if (a.host !== undefined && b.host !== undefined) return a.host === b.host;
  if (a.host !== undefined) return matchHostPattern(b, a.host) !== null;
  if (b.host !== undefined) return matchHostPattern(a, b.host) !== null;
  const prefixes = a.prefix.startsWith(b.prefix) || b.prefix.startsWith(a.prefix);
  return prefixes && (a.suffix.endsWith(b.suffix) || b.suffix.endsWith(a.suffix));
}
