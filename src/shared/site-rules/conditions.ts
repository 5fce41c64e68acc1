/**
 * Conditions of a `_redirects` rule (issue 34), as Netlify writes them:
 *
 * - query parameters, between the source and the destination: `/store id=:id /blog/:id`.
 *   `key=:name` requires the parameter and captures its value as `:name` for the
 *   destination; `key=value` requires that exact value. Every named parameter must be
 *   present; others may be there too.
 * - `Language=en,fr` and `Country=us,ca` after the status (comma lists, keys
 *   case-insensitive). `Sign=` is read there too, but by redirects.ts.
 *
 * All of a rule's conditions must hold (AND); a list matches when any of its values does.
 * Pure, so the router, deploy checks and tests share it.
 */
import { type RequestContext } from './request-context';

/** One `key=value` query condition; `capture` is the placeholder name for `key=:name`. */
export interface QueryCondition {
  /** Decoded, as URLSearchParams gives it. */
  readonly key: string;
  readonly capture: string | null;
  /** Decoded literal value (when `capture` is null). */
  readonly value: string;
}

export interface RuleConditions {
  readonly query: readonly QueryCondition[];
  /** Lower-case language ranges (RFC 4647 basic filtering), or null for no `Language=`. */
  readonly languages: readonly string[] | null;
  /** Upper-case ISO 3166-1 alpha-2 codes, or null for no `Country=`. */
  readonly countries: readonly string[] | null;
}

export const NO_CONDITIONS: RuleConditions = Object.freeze({ query: [], languages: null, countries: null });

const CAPTURE = /^:([A-Za-z]\w*)$/;
const LANGUAGE_RANGE = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/i;
const COUNTRY = /^[a-z]{2}$/i;

/**
 * A query condition token (`key=value` or `key=:name`), or what is wrong with it. `names`:
 * the source's placeholders and the captures of earlier query conditions, which a new
 * capture may not reuse.
 */
export function parseQueryCondition(token: string, names: readonly string[]): QueryCondition | { error: string } {
  const eq = token.indexOf('=');
  if (eq <= 0) return { error: 'is neither a query condition ("key=value" or "key=:name") nor a destination (a path starting with "/" or an http(s) URL)' };
  let pair: [string, string];
  try {
    pair = [...new URLSearchParams(token).entries()][0] ?? ['', ''];
  } catch {
    return { error: 'is not a valid "key=value" query condition' };
  }
  const rawValue = token.slice(eq + 1);
  const capture = CAPTURE.exec(rawValue)?.[1] ?? null;
  if (capture === 'splat') return { error: 'uses ":splat", the name reserved for the value of "*"; choose another name' };
  if (capture !== null && names.includes(capture)) return { error: `captures ":${capture}", a name the rule already uses` };
  return { key: pair[0], capture, value: capture === null ? pair[1] : '' };
}

/** A `Language=` list, lower-cased, or what is wrong with it. */
export function parseLanguages(list: string): string[] | { error: string } {
  const values = splitList(list);
  const bad = values.find((v) => !LANGUAGE_RANGE.test(v));
  if (bad !== undefined) return { error: `${JSON.stringify(bad)} is not a language tag such as "en" or "pt-BR"` };
  return values.map((v) => v.toLowerCase());
}

/** A `Country=` list, upper-cased, or what is wrong with it. */
export function parseCountries(list: string): string[] | { error: string } {
  const values = splitList(list);
  const bad = values.find((v) => !COUNTRY.test(v));
  if (bad !== undefined) return { error: `${JSON.stringify(bad)} is not a two-letter ISO 3166-1 country code such as "us" or "DE"` };
  return values.map((v) => v.toUpperCase());
}

function splitList(list: string): string[] {
  return list.split(',').map((v) => v.trim());
}

/**
 * Whether `tag` (the visitor's language, lower-case) falls under `range` (lower-case),
 * RFC 4647 basic filtering: equal, or `range` followed by "-". So `en` takes `en-us`,
 * `en-us` does not take `en`.
 */
export function languageMatches(range: string, tag: string): boolean {
  return tag === range || (tag.length > range.length && tag.startsWith(range) && tag[range.length] === '-');
}

/**
 * `Language=`: the visitor's most preferred language (the first of context.languages,
 * q-values applied) falls under one of the rule's ranges. Only the first counts, so a
 * visitor who prefers French and also reads English gets a site's French rule whatever
 * the order of the rules.
 */
export function languageHolds(ranges: readonly string[], context: RequestContext): boolean {
  const first = context.languages[0]?.toLowerCase();
  return first !== undefined && ranges.some((range) => languageMatches(range, first));
}

/** `Country=`: the client's country is one of the rule's; never when it is unknown. */
export function countryHolds(countries: readonly string[], context: RequestContext): boolean {
  return context.country !== null && countries.includes(context.country.toUpperCase());
}

/** The request's query parameters, first value of each name (decoded as forms are). */
export function queryParams(query: string): ReadonlyMap<string, string> {
  const params = new Map<string, string>();
  if (query === '') return params;
  for (const [key, value] of new URLSearchParams(query)) if (!params.has(key)) params.set(key, value);
  return params;
}

/**
 * Whether every query condition holds; captured values go into `into` under their names.
 * A parameter given twice counts by its first value.
 */
export function queryHolds(conditions: readonly QueryCondition[], params: ReadonlyMap<string, string>, into: Record<string, string>): boolean {
  for (const condition of conditions) {
    const value = params.get(condition.key);
    if (value === undefined) return false;
    if (condition.capture !== null) into[condition.capture] = value;
    else if (value !== condition.value) return false;
  }
  return true;
}

/**
 * A canonical form of a rule's conditions: two rules with the same source and the same
 * signature match exactly the same requests (capture names do not matter).
 */
export function conditionsSignature(conditions: RuleConditions, host: string | null): string {
  const query = conditions.query.map((q) => [q.key, q.capture === null ? `=${q.value}` : ':']).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const set = (list: readonly string[] | null) => (list === null ? null : [...new Set(list)].sort());
  return JSON.stringify([host, query, set(conditions.languages), set(conditions.countries)]);
}
