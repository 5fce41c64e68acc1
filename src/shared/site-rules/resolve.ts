/**
 * The whole answer to a GET or HEAD of a site, in the order the rules apply:
 * `_redirects` first (first matching rule wins; unforced rules only where no file
 * answers), then canonical URLs, then not-found handling (closest 404.html, SPA
 * fallback). Pure, so the router, deploy-time validation and tests share it.
 *
 * `_redirects` and `_headers` at the root are rules, never files: callers pass a
 * `has` that does not see them (RULE_FILES).
 */
import { pathHasFile, resolveSitePath, rewriteTargetFile } from './canonical';
import type { HeaderRules } from './headers';
import { matchRedirect, type MatchTrace, type RedirectRule, type RedirectRules } from './redirects';
import { EMPTY_CONTEXT, type RequestContext, type RequestNeeds } from './request-context';
import { parseRequestPath } from './request-path';
import { type RuleError } from './rule-file';

export const RULE_FILES: ReadonlySet<string> = new Set(['_redirects', '_headers']);

export type Resolution =
  | { kind: 'file'; path: string; status: 200 | 404 }
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
  /** Forward the request to `url` (src/sites/proxy); `signed` names the env var that signs it. */
  | { kind: 'proxy'; url: string; signed: string | null }
  | { kind: 'not_found' };

const NOT_FOUND: Resolution = { kind: 'not_found' };

/**
 * What of a request beyond its path and query a deployment's rules read: `_redirects`'
 * needs, plus the host when a `_headers` block names one. Computed once per deployment,
 * so a site without such blocks reads no more of a request than before.
 */
export function siteRuleNeeds(redirects: RedirectRules, headers: HeaderRules): RequestNeeds {
  return headers.hosts && !redirects.needs.host ? { ...redirects.needs, host: true } : redirects.needs;
}

/**
 * `path` is parseRequestPath's form, or null for a target no file could have
 * (that gets only the top-level 404.html: no rule and no SPA fallback applies to
 * a path that means nothing). `query` is the raw query string without "?".
 */
export function resolveRequest(
  path: string | null,
  query: string,
  redirects: RedirectRules,
  has: (path: string) => boolean,
  context: RequestContext = EMPTY_CONTEXT,
  /** Filled with what the rules read beyond the path (MatchTrace), for the router's memo. */
  trace?: MatchTrace,
): Resolution {
  if (path === null) return has('404.html') ? { kind: 'file', path: '404.html', status: 404 } : NOT_FOUND;
  const rule = matchRedirect(redirects, path, query, (p) => pathHasFile(p, has), context, trace);
  if (rule?.kind === 'redirect') return { kind: 'redirect', status: rule.status, location: rule.location };
  if (rule?.kind === 'proxy') return { kind: 'proxy', url: rule.url, signed: rule.signed };
  if (rule?.kind === 'rewrite') {
    const target = rewriteTargetFile(rule.path, has);
    // A rewrite to a file the deployment lacks answers as if no rule had matched.
    if (target !== undefined) return { kind: 'file', path: target, status: rule.status };
  }
  return resolveSitePath(path, query, 'GET', has);
}

/** Redirects a browser follows before giving up (Chromium and Firefox stop at 20). */
export const MAX_REDIRECT_HOPS = 20;

/**
 * Redirect loops (and chains longer than MAX_REDIRECT_HOPS) that `_redirects`
 * creates over a deployment's files, each reported at the line of the rule it
 * starts from. Every rule is tried with a request it matches (a placeholder or
 * splat stands for "x"), so a reported loop is one a visitor can hit; loops only
 * some values of a placeholder reach are not all found, and are harmless beyond
 * the browser's own "too many redirects".
 *
 * With conditions, the request is one that satisfies the rule's: its host, its query
 * parameters present (captures standing for "x"), its first language and country. The
 * whole chain keeps that visitor (host, language, country) and follows each Location's
 * own query string, so rules that no single visitor can chain are never reported.
 */
export function findRedirectLoops(redirects: RedirectRules, has: (path: string) => boolean): RuleError[] {
  const errors: RuleError[] = [];
  for (const rule of redirects.rules) {
    const start = rule.pattern.path ?? parseRequestPath(rule.pattern.source.replace(/\*/g, 'x').replace(/:[A-Za-z]\w*/g, 'x'));
    if (start === null) continue;
    const context = visitorFor(rule);
    let query = queryFor(rule);
    // A visitor's state is the path and the query: with query conditions, coming back to a
    // path with another query string is not yet a loop.
    const seen = [shownTarget(start, query)];
    let path = start;
    for (let hop = 0; ; hop++) {
      const answer = resolveRequest(path, query, redirects, has, context);
      if (answer.kind !== 'redirect' || !answer.location.startsWith('/')) break;
      const next = parseRequestPath(answer.location);
      if (next === null) break;
      query = queryOf(answer.location);
      const target = shownTarget(next, query);
      const shown = () => [...seen, target].join(' → ');
      if (seen.includes(target)) {
        errors.push({ line: rule.line, message: `redirects in a loop: ${shown()}` });
        break;
      }
      if (hop >= MAX_REDIRECT_HOPS) {
        errors.push({ line: rule.line, message: `starts a chain of more than ${MAX_REDIRECT_HOPS} redirects (browsers give up): ${shown()}` });
        break;
      }
      seen.push(target);
      path = next;
    }
  }
  return errors;
}

function shownTarget(path: string, query: string): string {
  return query === '' ? `/${path}` : `/${path}?${query}`;
}

/** A visitor the rule's host, Language= and Country= conditions let through. */
function visitorFor(rule: RedirectRule): RequestContext {
  if (!rule.conditional) return EMPTY_CONTEXT;
  const { languages, countries } = rule.conditions;
  return { host: rule.host ?? '', languages: languages ? [languages[0]] : [], country: countries ? countries[0] : null };
}

/** A query string the rule's query conditions accept. */
function queryFor(rule: RedirectRule): string {
  const params = new URLSearchParams();
  for (const q of rule.conditions.query) params.append(q.key, q.capture === null ? q.value : 'x');
  return params.toString();
}

/** The raw query string of a same-site Location ("" when none). */
function queryOf(location: string): string {
  const hash = location.indexOf('#');
  const url = hash === -1 ? location : location.slice(0, hash);
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}
