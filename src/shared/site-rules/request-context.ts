/**
 * What a `_redirects` rule may look at beyond the path and query (issue 34): the host
 * the request came to (domain-level sources), the visitor's languages (`Language=`) and
 * country (`Country=`). The router computes only what a deployment's rules need
 * (RedirectRules.needs), so a site without such rules never parses Accept-Language or
 * opens the GeoIP database.
 */
export interface RequestContext {
  /** The request's host, lowercased, without a port. */
  readonly host: string;
  /** Accept-Language tags in preference order (q-values applied, q=0 dropped), lowercased; [] when absent. */
  readonly languages: readonly string[];
  /** ISO 3166-1 alpha-2 code of the client's country, upper case; null when unknown or no GeoIP database. */
  readonly country: string | null;
}

/** Which parts of a RequestContext a deployment's rules read. */
export interface RequestNeeds {
  readonly host: boolean;
  readonly language: boolean;
  readonly country: boolean;
}

export const NO_NEEDS: RequestNeeds = Object.freeze({ host: false, language: false, country: false });

export const EMPTY_CONTEXT: RequestContext = Object.freeze({ host: '', languages: [], country: null });
