/**
 * `_redirects`: the Netlify file format, which Cloudflare Pages reads too.
 *
 * One rule a line, `source [key=value…] destination [status][!] [conditions…]`, `#`
 * comments (also after the source), blank lines, CRLF. Sources are paths with at most
 * one `*` splat and whole-segment `:placeholders` (pattern.ts), or Netlify's
 * domain-level sources (`https://old.example.com/*`: the request's host must be that
 * one). Destinations are paths of the site or absolute http(s) URLs, may use `:splat`,
 * the placeholders and captured query parameters, and may carry a query string and a
 * fragment; `/dir/* 200` alone is Netlify's shorthand for `/dir/* /dir/:splat 200`.
 *
 * Statuses: 301 (the default, as on Netlify; Cloudflare defaults to 302), 302,
 * 303, 307, 308 redirect; 200 serves another path of the same deployment
 * ("rewrite"), or forwards the request to an absolute URL ("proxy", `Sign=NAME`
 * signs it); 404 serves another path with status 404. `!` after the status forces
 * the rule.
 *
 * Conditions (conditions.ts): query parameters (`id=:id` before the destination),
 * `Language=` and `Country=` after the status; all must hold.
 *
 * Matching follows Netlify: the first matching rule in file order wins (several rules
 * for one source are fine: the first whose conditions hold), and a rule without `!`
 * only applies when no file answers the request path ("shadowing"; Cloudflare instead
 * always applies rules). The request's query string is passed on when the destination
 * has none (Netlify and Cloudflare both do this).
 *
 * Where we differ from both: a line that cannot be used is refused with an
 * error naming the line, never skipped; so are `Role=` and `Cookie=` (no Netlify
 * Identity here), unknown conditions, a rule that redirects to itself, placeholders
 * inside a segment, placeholders in a destination's host, and protocol-relative
 * destinations ("//host"). A rule that deploys but can never apply (shadowed by an
 * earlier one with the same source and conditions; `Country=` without a GeoIP
 * database) is a warning.
 * Limits are Cloudflare's: 2,000 static and 100 dynamic rules (dynamic: with a
 * splat or placeholder), 1,000 characters a line.
 */
import {
  conditionsSignature,
  countryHolds,
  languageHolds,
  NO_CONDITIONS,
  parseCountries,
  parseLanguages,
  parseQueryCondition,
  type QueryCondition,
  queryHolds,
  queryParams,
  type RuleConditions,
} from './conditions';
import {
  type Captures,
  compilePathPattern,
  compileTemplate,
  encodePathValue,
  matchPathPattern,
  type PathPattern,
  safeQuery,
  type TemplatePart,
} from './pattern';
import { EMPTY_CONTEXT, NO_NEEDS, type RequestContext, type RequestNeeds } from './request-context';
import { parseRequestPath } from './request-path';
import { lineProblem, type ParseResult, quote, RuleErrors, ruleLines } from './rule-file';

export const MAX_STATIC_REDIRECTS = 2000;
export const MAX_DYNAMIC_REDIRECTS = 100;
export const MAX_REDIRECT_LINE_CHARS = 1000;

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;
export type RewriteStatus = 200 | 404;
const STATUSES = new Set([200, 301, 302, 303, 307, 308, 404]);

interface SameSiteDestination {
  kind: 'path';
  /** Path section (before "?" / "#"), literal parts as written (URL-encoded). */
  path: TemplatePart[];
  /** Path section with literal parts decoded, for rewrites. */
  decodedPath: TemplatePart[];
  /** "?…" and "#…" as written, possibly with captures. */
  query: TemplatePart[];
  fragment: TemplatePart[];
}

/** A 200 to an absolute URL: the router forwards the request there (src/sites/proxy). */
interface ProxyDestination {
  kind: 'proxy';
  /** Scheme, host and path, as written. */
  path: TemplatePart[];
  query: TemplatePart[];
}

interface AbsoluteDestination {
  kind: 'url';
  /** Scheme, host and path, as written. */
  path: TemplatePart[];
  query: TemplatePart[];
  fragment: TemplatePart[];
}

export interface RedirectRule {
  /** Position in the file (0-based among rules) and line number (1-based). */
  readonly index: number;
  readonly line: number;
  readonly source: string;
  readonly destination: string;
  readonly status: RedirectStatus | RewriteStatus;
  readonly force: boolean;
  readonly pattern: PathPattern;
  readonly target: SameSiteDestination | AbsoluteDestination | ProxyDestination;
  /** `Sign=NAME` (Netlify's proxy signing): the project environment variable whose value signs the proxied request. */
  readonly signed: string | null;
  /** Lower-case host of a domain-level source (`https://old.example.com/*`): the rule matches only requests to it. */
  readonly host: string | null;
  /** Query, `Language=` and `Country=` conditions (conditions.ts); NO_CONDITIONS when none. */
  readonly conditions: RuleConditions;
  /** Whether the rule reads more than the path: a host, or any condition. */
  readonly conditional: boolean;
}

/**
 * What a match read beyond the path, for the router's memo (filled by matchRedirect when
 * given): `conditional` when any rule whose path matched has a host or conditions, whatever
 * the outcome (then the answer for this path may differ between requests and is not kept
 * per path); `language` / `country` when such a rule looked at the visitor's language /
 * country (the answer then varies with Accept-Language / cannot go in a shared cache).
 */
export interface MatchTrace {
  conditional: boolean;
  language: boolean;
  country: boolean;
}

/** Rules compiled for matching: static ones indexed by path, dynamic ones in order. */
export interface RedirectRules {
  readonly rules: readonly RedirectRule[];
  readonly byPath: ReadonlyMap<string, readonly RedirectRule[]>;
  readonly dynamic: readonly RedirectRule[];
  /** What of the request beyond path and query the rules read (the router computes only that). */
  readonly needs: RequestNeeds;
  /** Whether any rule proxies: then every method, not only GET and HEAD, goes through the rules. */
  readonly proxies: boolean;
}

export const NO_REDIRECTS: RedirectRules = { rules: [], byPath: new Map(), dynamic: [], needs: NO_NEEDS, proxies: false };

const NO_CAPTURES: Record<string, string> = Object.freeze({}) as Record<string, string>;

export type RedirectMatch =
  /** Answer `status` with `Location: location` (same-site paths start with one "/"). */
  | { kind: 'redirect'; status: RedirectStatus; location: string; force: boolean; line: number }
  /** Serve `path` (canonical form, as parseRequestPath gives) with `status`, the URL unchanged. */
  | { kind: 'rewrite'; status: RewriteStatus; path: string; force: boolean; line: number }
  /** Forward the request to `url` (absolute; the request's query passed on as for redirects); `signed`: see RedirectRule. */
  | { kind: 'proxy'; url: string; signed: string | null; force: boolean; line: number };

/**
 * Parses and checks a `_redirects` file; every unusable line is an error, and a line that
 * deploys but can never apply is a warning.
 *
 * `geoip: false` (the instance has no GeoIP database): `Country=` rules still deploy, each
 * with a warning that it never matches. The router's own parse leaves it at true.
 */
export function parseRedirects(file: Uint8Array, options: { geoip?: boolean } = {}): ParseResult<RedirectRules> {
  const errors = new RuleErrors();
  const lines = ruleLines(file, '_redirects', errors);
  if (!lines) return errors.result(NO_REDIRECTS);
  const rules: RedirectRule[] = [];
  // Source (host and path) → the earlier rules for it, to find rules that can never apply.
  const earlierFor = new Map<string, RedirectRule[]>();
  let statics = 0;
  let dynamics = 0;
  lines.forEach(({ line, text, trimmed }) => {
    const problem = lineProblem(text, MAX_REDIRECT_LINE_CHARS);
    if (problem) return errors.add(line, `line ${problem}`);

    let tokens = trimmed.split(/\s+/);
    const comment = tokens.findIndex((t, n) => n >= 1 && t.startsWith('#'));
    if (comment !== -1) tokens = tokens.slice(0, comment);
    const parts = splitRuleLine(tokens);
    if ('error' in parts) return errors.add(line, parts.error);
    const { source, queryTokens, statusText = '301', conditionTokens } = parts;

    const status = /^(\d{3})(!?)$/.exec(statusText);
    if (!status || !STATUSES.has(Number(status[1]))) {
      return errors.add(line, `status ${quote(statusText)} is not one of 301, 302, 303, 307, 308, 200 or 404 (add "!" to force, e.g. "200!")`);
    }
    const code = Number(status[1]) as RedirectStatus | RewriteStatus;

    const from = compileSource(source);
    if ('error' in from) return errors.add(line, `source ${quote(source)} ${from.error}`);
    const { pattern, host } = from;

    let destination = parts.destination;
    if (destination === undefined) {
      // Netlify's shorthand: "/admin/* 200" is "/admin/* /admin/:splat 200".
      if (!(code === 200 && /\/\*$/.test(pattern.source))) {
        return errors.add(
          line,
          `has no destination; only a source ending in "/*" with status 200 may leave it out ("/app/* 200" serves "/app/:splat"), otherwise write "source destination [status]"`,
        );
      }
      destination = pattern.source.replace(/\/\*$/, '/:splat');
    }

    const names = [...pattern.names];
    const query: QueryCondition[] = [];
    for (const token of queryTokens) {
      const condition = parseQueryCondition(token, names);
      if ('error' in condition) return errors.add(line, `${quote(token)} ${condition.error}`);
      if (query.some((q) => q.key === condition.key)) return errors.add(line, `names the query parameter ${quote(condition.key)} twice`);
      if (condition.capture !== null) names.push(condition.capture);
      query.push(condition);
    }

    let signed: string | null = null;
    let languages: string[] | null = null;
    let countries: string[] | null = null;
    for (const token of conditionTokens) {
      const eq = token.indexOf('=');
      const key = eq === -1 ? '' : token.slice(0, eq).toLowerCase();
      const value = token.slice(eq + 1);
      if (eq <= 0) return errors.add(line, `${quote(token)} is not a condition; after the status come Country=, Language= or Sign= (e.g. "302 Country=us")`);
      const seen = (key === 'signed' ? 'sign' : key) as string;
      if ((seen === 'sign' && signed !== null) || (seen === 'language' && languages !== null) || (seen === 'country' && countries !== null)) {
        return errors.add(line, `gives ${token.slice(0, eq)}= twice; list the values once, separated by commas`);
      }
      if (value === '' && seen !== 'role' && seen !== 'cookie') return errors.add(line, `${quote(token)} has no value`);
      if (seen === 'sign') {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) return errors.add(line, `${quote(token)} must name an environment variable (letters, digits, "_")`);
        signed = value;
      } else if (seen === 'language') {
        const parsed = parseLanguages(value);
        if ('error' in parsed) return errors.add(line, `Language= ${parsed.error}`);
        languages = parsed;
      } else if (seen === 'country') {
        const parsed = parseCountries(value);
        if ('error' in parsed) return errors.add(line, `Country= ${parsed.error}`);
        countries = parsed;
      } else if (seen === 'role') {
        return errors.add(
          line,
          'Role= is not supported: it reads Netlify Identity roles, and this service has no Netlify Identity (protect a site with its password or email gate instead)',
        );
      } else if (seen === 'cookie') {
        return errors.add(
          line,
          "Cookie= is not supported: rules cannot depend on cookies here (they would defeat caching and the gate's cookie is not the site's)",
        );
      } else {
        return errors.add(line, `${quote(token)} is not a condition this service knows; use Country=, Language= or Sign=`);
      }
    }

    const target = compileDestination(destination, code, pattern, names);
    if ('error' in target) return errors.add(line, `destination ${quote(destination)} ${target.error}`);
    if (signed !== null && target.kind !== 'proxy')
      return errors.add(line, `signs with ${quote(signed)}, which only a proxy rule (status 200 to an http(s) URL) can do`);

    if (
      host === null &&
      query.length === 0 &&
      pattern.path !== undefined &&
      !isRewrite(code) &&
      target.kind === 'path' &&
      target.path.every((p) => p.kind === 'text')
    ) {
      const to = parseRequestPath(target.path.map((p) => (p as { raw: string }).raw).join(''));
      if (to === pattern.path && target.query.length === 0) return errors.add(line, `redirects ${quote(source)} to itself`);
    }

    if (pattern.path === undefined) {
      if (++dynamics === MAX_DYNAMIC_REDIRECTS + 1) {
        errors.add(line, `is dynamic rule number ${dynamics} (with "*" or a placeholder); the limit is ${MAX_DYNAMIC_REDIRECTS}`);
      }
    } else if (++statics === MAX_STATIC_REDIRECTS + 1) {
      errors.add(line, `is static rule number ${statics}; the limit is ${MAX_STATIC_REDIRECTS}`);
    }
    const conditions: RuleConditions = query.length === 0 && languages === null && countries === null ? NO_CONDITIONS : { query, languages, countries };
    const rule: RedirectRule = {
      index: rules.length,
      line,
      source,
      destination,
      status: code,
      force: status[2] === '!',
      pattern,
      target,
      signed,
      host,
      conditions,
      conditional: host !== null || conditions !== NO_CONDITIONS,
    };

    // Several rules for one source are meaningful now that conditions exist (the first that
    // matches wins); one with the same source and the same conditions as an earlier rule that
    // always applies where it matches can never be reached.
    const key = `${host ?? ''} ${pattern.path ?? pattern.source}`;
    const signature = conditionsSignature(conditions, host);
    const shadow = (earlierFor.get(key) ?? []).find((e) => conditionsSignature(e.conditions, e.host) === signature && (e.force || !rule.force));
    if (shadow) errors.warn(line, `source ${quote(source)} is shadowed by line ${shadow.line} (same source and conditions), so this rule never applies`);
    earlierFor.set(key, [...(earlierFor.get(key) ?? []), rule]);
    if (countries !== null && options.geoip === false) {
      errors.warn(line, 'Country= never matches: this instance has no GeoIP database (the operator sets GEOIP_DATABASE), so no visitor has a known country');
    }
    rules.push(rule);
  });
  return errors.result(compile(rules));
}

/**
 * A rule line's tokens in Netlify's order: `source [query conditions…] destination
 * [status[!]] [conditions…]`, where the destination is the first token that starts with
 * "/" or is an http(s) URL, and may be left out (the "/path/* 200" shorthand) when the
 * token after the source is a status.
 */
function splitRuleLine(
  tokens: string[],
): { source: string; queryTokens: string[]; destination?: string; statusText?: string; conditionTokens: string[] } | { error: string } {
  const [source, ...rest] = tokens;
  if (rest.length === 0) return { error: `has only ${quote(source)}; a rule is "source destination [status]", e.g. "/old /new 301"` };
  if (/^\d{3}!?$/.test(rest[0])) return { source, queryTokens: [], statusText: rest[0], conditionTokens: rest.slice(1) };
  let to = rest.findIndex((t) => t.startsWith('/') || /^https?:\/\//i.test(t));
  // No usable destination: take the first token that is not a query condition for one, so
  // that its error says what is wrong with it ("javascript:…" uses another scheme).
  if (to === -1) to = rest.findIndex((t) => !t.includes('='));
  if (to === -1) {
    return {
      error:
        'has no destination; a rule is "source [key=value…] destination [status] [conditions]", the destination a path starting with "/" or an http(s) URL',
    };
  }
  const after = rest.slice(to + 1);
  if (after.length > 0 && !/^\d{3}!?$/.test(after[0]) && after[0].includes('=')) {
    return { error: `has ${quote(after[0])} where the status goes; conditions come after the status, e.g. "/a /b 302 Country=us"` };
  }
  return { source, queryTokens: rest.slice(0, to), destination: rest[to], statusText: after[0], conditionTokens: after.slice(1) };
}

/**
 * A rule's source: a path pattern, or a domain-level source (`https://old.example.com/*`)
 * whose host must equal the request's (case-insensitive; the scheme is not compared: TLS
 * ends in front of the server, so both schemes reach it alike).
 */
function compileSource(raw: string): { pattern: PathPattern; host: string | null } | { error: string } {
  const scheme = /^https?:\/\//i.exec(raw);
  if (!scheme) {
    const pattern = compilePathPattern(raw);
    if ('error' in pattern) return pattern;
    return underNetlifyPrefix(pattern) ? { error: NETLIFY_PREFIX_ERROR } : { pattern, host: null };
  }
  const rest = raw.slice(scheme[0].length);
  const slash = rest.search(/[/?#]/);
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '/' : rest.slice(slash);
  if (authority === '') return { error: 'has no host' };
  if (authority.includes('@')) return { error: 'contains credentials ("user@"); give only the host' };
  if (authority.includes(':')) return { error: 'has a port or a placeholder in its host; a domain-level source names one fixed host, without a port' };
  if (authority.includes('*')) return { error: 'has "*" in its host; a domain-level source names one fixed host' };
  let host: string;
  try {
    host = new URL(`http://${authority}/`).hostname;
  } catch {
    return { error: 'has a host that is not valid' };
  }
  const pattern = compilePathPattern(path);
  if ('error' in pattern) return { error: `has a path that ${pattern.error}` };
  if (underNetlifyPrefix(pattern)) return { error: NETLIFY_PREFIX_ERROR };
  return { pattern, host };
}

/**
 * Netlify refuses rules for its reserved `/.netlify/` paths (its functions and identity
 * live there). Nothing lives there here either, and refusing them too keeps a rules file
 * that deploys here deployable on Netlify, as theirs are here.
 */
const NETLIFY_PREFIX_ERROR = 'is under /.netlify/, which Netlify reserves and refuses rules for; no file of a site can live there';

function underNetlifyPrefix(pattern: PathPattern): boolean {
  return pattern.prefix.toLowerCase().startsWith('/.netlify/') || pattern.prefix.toLowerCase() === '/.netlify';
}

function isRewrite(status: number): status is RewriteStatus {
  return status === 200 || status === 404;
}

function compile(rules: RedirectRule[]): RedirectRules {
  const byPath = new Map<string, RedirectRule[]>();
  const dynamic: RedirectRule[] = [];
  for (const rule of rules) {
    if (rule.pattern.path === undefined) dynamic.push(rule);
    else byPath.set(rule.pattern.path, [...(byPath.get(rule.pattern.path) ?? []), rule]);
  }
  const needs: RequestNeeds = {
    host: rules.some((r) => r.host !== null),
    language: rules.some((r) => r.conditions.languages !== null),
    country: rules.some((r) => r.conditions.countries !== null),
  };
  return {
    rules,
    byPath,
    dynamic,
    needs: needs.host || needs.language || needs.country ? needs : NO_NEEDS,
    proxies: rules.some((r) => r.target.kind === 'proxy'),
  };
}

function splitUrl(raw: string): { path: string; query: string; fragment: string } {
  const hash = raw.indexOf('#');
  const beforeHash = hash === -1 ? raw : raw.slice(0, hash);
  const fragment = hash === -1 ? '' : raw.slice(hash);
  const q = beforeHash.indexOf('?');
  return { path: q === -1 ? beforeHash : beforeHash.slice(0, q), query: q === -1 ? '' : beforeHash.slice(q), fragment };
}

function compileDestination(
  raw: string,
  status: number,
  pattern: PathPattern,
  /** The source's placeholders and the query conditions' captures. */
  names: readonly string[] = pattern.names,
): SameSiteDestination | AbsoluteDestination | ProxyDestination | { error: string } {
  const parts = splitUrl(raw);
  if (/^https?:\/\//i.test(raw)) {
    if (status === 404) return { error: 'is another site; status 404 serves a file of this deployment, use 200 to proxy or a redirect status such as 301' };
    const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/, 1)[0];
    if (compileTemplate(authority, names).some((p) => p.kind === 'value')) {
      return { error: 'puts a placeholder in the host; the host of a redirect must be fixed' };
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { error: 'is not a valid URL' };
    }
    if (!url.hostname) return { error: 'has no host' };
    if (url.username || url.password) return { error: 'contains credentials ("user:password@"); remove them' };
    if (status === 200) {
      if (parts.fragment) return { error: 'has a fragment; a proxied request has none' };
      return { kind: 'proxy', path: compileTemplate(parts.path, names), query: compileTemplate(parts.query, names) };
    }
    return {
      kind: 'url',
      path: compileTemplate(parts.path, names),
      query: compileTemplate(parts.query, names),
      fragment: compileTemplate(parts.fragment, names),
    };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) return { error: 'uses a scheme other than http or https' };
  if (raw.startsWith('//') || raw.startsWith('/\\')) {
    return { error: 'is protocol-relative ("//…"); write "https://host/…" for another site, or a path starting with a single "/"' };
  }
  if (!raw.startsWith('/')) return { error: 'must be a path starting with "/" or an http:// or https:// URL' };
  if (isRewrite(status) && (parts.query || parts.fragment)) {
    return { error: `has a query string or fragment; status ${status} serves a file, which ignores them` };
  }
  const path = compileTemplate(parts.path, names);
  const probe = path.map((p) => (p.kind === 'text' ? p.raw : 'x')).join('');
  if (parseRequestPath(probe) === null) {
    return {
      error:
        'is not a path inside the site (it has an empty segment, a "." or ".." segment, an encoded "/" or "\\", a control character or a malformed %-escape)',
    };
  }
  const decodedPath = path.map((p): TemplatePart => (p.kind === 'text' ? { kind: 'text', raw: decodeURIComponent(p.raw).normalize('NFC') } : p));
  return { kind: 'path', path, decodedPath, query: compileTemplate(parts.query, names), fragment: compileTemplate(parts.fragment, names) };
}

/**
 * The rule that answers a request, if any.
 *
 * `path` is the canonical request path (parseRequestPath's form: decoded, no
 * leading "/"); anything else matches nothing. `query` is the raw query string
 * (without "?"). `fileExists(path)` says whether a file of the deployment
 * answers that path; it is asked at most once, and only when an unforced rule
 * matches. `context` holds what conditions and domain-level sources read (the router
 * fills only what rules.needs names); `trace`, when given, records what was read.
 *
 * Static rules are found by a Map lookup and only dynamic rules that come
 * earlier in the file are tried, so the first matching rule in file order wins
 * at the cost of at most 100 pattern tests.
 */
export function matchRedirect(
  rules: RedirectRules,
  path: string,
  query: string,
  fileExists: (path: string) => boolean,
  context: RequestContext = EMPTY_CONTEXT,
  trace?: MatchTrace,
): RedirectMatch | null {
  if (rules.rules.length === 0 || !isCanonicalPath(path)) return null;
  let exists: boolean | undefined;
  let params: ReadonlyMap<string, string> | undefined;
  // A rule whose path matched: do its host and conditions hold (captures from the query added)?
  const holds = (rule: RedirectRule, captures: Record<string, string>): boolean => {
    if (!rule.conditional) return true;
    if (trace) trace.conditional = true;
    if (rule.host !== null && rule.host !== context.host) return false;
    const { query: wanted, languages, countries } = rule.conditions;
    if (wanted.length > 0 && !queryHolds(wanted, (params ??= queryParams(query)), captures)) return false;
    if (languages !== null) {
      if (trace) trace.language = true;
      if (!languageHolds(languages, context)) return false;
    }
    if (countries !== null) {
      if (trace) trace.country = true;
      if (!countryHolds(countries, context)) return false;
    }
    return true;
  };
  const applies = (rule: RedirectRule) => rule.force || !(exists ??= fileExists(path));

  let best: RedirectRule | undefined;
  let captures: Captures = {};
  for (const rule of rules.byPath.get(path) ?? []) {
    // Only conditional rules write captures (from the query).
    const found: Record<string, string> = rule.conditional ? {} : NO_CAPTURES;
    if (holds(rule, found) && applies(rule)) {
      best = rule;
      captures = found;
      break;
    }
  }
  for (const rule of rules.dynamic) {
    if (best && rule.index > best.index) break;
    const found = matchPathPattern(rule.pattern, path);
    if (found && holds(rule, found as Record<string, string>) && applies(rule)) {
      best = rule;
      captures = found;
      break;
    }
  }
  return best ? answer(best, captures, query) : null;
}

/** parseRequestPath's output shape: no leading "/", no empty, "." or ".." segment, no backslash. */
function isCanonicalPath(path: string): boolean {
  if (path.startsWith('/') || path.includes('\\')) return false;
  const segments = path.split('/');
  return segments.every((s, i) => (s === '' ? i === segments.length - 1 : s !== '.' && s !== '..'));
}

/** A "." or ".." path segment as URL parsers resolve it ("%2e" spellings included). */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

function answer(rule: RedirectRule, captures: Captures, query: string): RedirectMatch | null {
  const { target } = rule;
  if (target.kind === 'proxy') {
    const ownQuery = render(target.query, captures, encodeURIComponent);
    const passedQuery = ownQuery === '' && query !== '' ? `?${safeQuery(query)}` : '';
    const path = render(target.path, captures, encodePathValue);
    // A query-captured value (`?id=../../admin`) is the one capture that can hold a "." or
    // ".." segment (request paths are canonical): the origin's URL would resolve it and reach
    // paths outside the one the rule names. Such a request matches nothing (dot segments the
    // author wrote are the author's).
    if (DOT_SEGMENT.test(path) && !DOT_SEGMENT.test(render(target.path, captures, () => 'x'))) return null;
    const url = `${path}${ownQuery}${passedQuery}`;
    return { kind: 'proxy', url, signed: rule.signed, force: rule.force, line: rule.line };
  }
  if (isRewrite(rule.status)) {
    const path = rewritePath((target as SameSiteDestination).decodedPath, captures);
    return path === null ? null : { kind: 'rewrite', status: rule.status, path, force: rule.force, line: rule.line };
  }
  let path = render(target.path, captures, encodePathValue);
  // A captured value can be empty or start with "/" ("/go* /:splat" for "/go/evil.com"):
  // collapsing repeated slashes keeps a same-site Location from ever becoming "//host".
  if (target.kind === 'path') path = path.replace(/\/{2,}/g, '/');
  const ownQuery = render(target.query, captures, encodeURIComponent);
  const passedQuery = ownQuery === '' && query !== '' ? `?${safeQuery(query)}` : '';
  const location = `${path}${ownQuery}${passedQuery}${render(target.fragment, captures, encodeURIComponent)}`;
  return { kind: 'redirect', status: rule.status as RedirectStatus, location, force: rule.force, line: rule.line };
}

function render(parts: readonly TemplatePart[], captures: Captures, encode: (value: string) => string): string {
  let out = '';
  for (const part of parts) out += part.kind === 'text' ? part.raw : encode(captures[part.name] ?? '');
  return out;
}

/** The canonical path a rewrite serves; empty segments from captures are dropped, a trailing "/" kept. */
function rewritePath(parts: readonly TemplatePart[], captures: Captures): string | null {
  const joined = render(parts, captures, (v) => v);
  const segments = joined.split('/');
  const trailing = segments[segments.length - 1] === '';
  const kept = segments.filter((s) => s !== '');
  if (kept.some((s) => s === '.' || s === '..')) return null;
  const path = kept.join('/');
  return trailing && path !== '' ? `${path}/` : path;
}
