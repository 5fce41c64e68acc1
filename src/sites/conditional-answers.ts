import type { HeaderChanges } from '../shared/site-rules/headers';
import type { MatchTrace } from '../shared/site-rules/redirects';

/** What matching a request against `_redirects` looked at beyond its path (the rules' MatchTrace). */
export type AnswerTrace = MatchTrace;

/** An answer that depends on more than the request path, with what shared caches must be told. */
export interface ConditionalAnswer<A> {
  readonly kind: 'conditional';
  readonly answer: A;
  /** The answer read Accept-Language: `Vary: Accept-Language`. */
  readonly language: boolean;
  /** The answer read the visitor's country, which no header carries: no shared cache may keep it. */
  readonly country: boolean;
}

/** Answers kept per site state for paths whose answer depends on the request; then emptied and refilled. */
export const MAX_CONDITIONAL_ANSWERS = 4096;

/**
 * The router's second memo, beside the per-path one (SiteState.resolved): answers of
 * paths some conditional rule matches, keyed by the URL and the parts of the request the
 * rules may read (conditionalKey). Bounded: past MAX_CONDITIONAL_ANSWERS it starts
 * over, so a client varying Accept-Language cannot pin memory, only cost itself a
 * rule match.
 */
export class ConditionalAnswers<A> {
  private readonly paths = new Set<string>();
  private readonly answers = new Map<string, ConditionalAnswer<A>>();

  /**
   * `charge` counts each new answer against the site cache's byte budget (SiteState.chargeAnswer):
   * a client varying Accept-Language fills this memo, so it must be paid for like the per-path one.
   * Nothing is refunded when the memo starts over: the entry only looks larger than it is, and
   * is evicted and reloaded sooner, never the other way round.
   */
  constructor(private readonly charge?: (key: string) => void) {}

  /** Whether `path`'s answer was found to depend on the request (the per-path memo must not hold it). */
  isConditional(path: string): boolean {
    return this.paths.has(path);
  }

  get(key: string): ConditionalAnswer<A> | undefined {
    return this.answers.get(key);
  }

  set(path: string, key: string, answer: ConditionalAnswer<A>): void {
    if (this.answers.size >= MAX_CONDITIONAL_ANSWERS || this.paths.size >= MAX_CONDITIONAL_ANSWERS) {
      this.answers.clear();
      this.paths.clear();
    }
    this.paths.add(path);
    if (!this.answers.has(key)) this.charge?.(key);
    this.answers.set(key, answer);
  }
}

/**
 * The memo key of a conditional answer: the URL (query conditions read it), and the
 * raw headers and country the site's rules can read (`undefined` for what they do not).
 * The raw Accept-Language, not its parse, so a memo hit parses nothing.
 */
export function conditionalKey(url: string, host: string | undefined, acceptLanguage: string | undefined, country: string | null | undefined): string {
  return `${url}\n${host ?? ''}\n${acceptLanguage ?? ''}\n${country ?? ''}`;
}

/** Headers that decide who may store an answer and for how long. */
const CACHING = new Set(['cache-control', 'cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control', 'expires', 'pragma']);

/**
 * `_headers` changes of a conditional file answer: `Vary: Accept-Language` when the
 * answer read the visitor's languages (merged with the server's own Vary); when it read
 * the country, no rule may make it cacheable by a shared cache, which would hand one
 * country's answer to every other (the router's `private` Cache-Control stays).
 */
export function conditionalHeaderChanges(changes: HeaderChanges, language: boolean, country: boolean): HeaderChanges {
  if (!language && !country) return changes;
  const set = country ? changes.set.filter(([name]) => !CACHING.has(name.toLowerCase())) : [...changes.set];
  if (language) set.push(['Vary', 'Accept-Language']);
  return { set, remove: country ? changes.remove.filter((name) => !CACHING.has(name)) : changes.remove };
}
