import type { IncomingMessage } from 'node:http';

import Negotiator from 'negotiator';

import { EMPTY_CONTEXT, type RequestContext, type RequestNeeds } from '../shared/site-rules/request-context';
import { normaliseHost } from './host';

/** More languages than anyone lists; the rest of a longer header is ignored. */
export const MAX_LANGUAGES = 20;

/** A language range as RFC 4647 allows in Accept-Language ("*" excepted: it names no language). */
const LANGUAGE_TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/;

/**
 * What a deployment's `_redirects` conditions read from one request (issue 34), only
 * the parts `needs` names: a site whose rules have no conditions gets EMPTY_CONTEXT
 * without reading a header. `country` is asked only when needed (a GeoIP lookup).
 */
export function requestContext(req: IncomingMessage, needs: RequestNeeds, country: (req: IncomingMessage) => string | null): RequestContext {
  if (!needs.host && !needs.language && !needs.country) return EMPTY_CONTEXT;
  return {
    host: needs.host ? (normaliseHost(req.headers.host) ?? '') : '',
    languages: needs.language ? acceptedLanguages(req.headers['accept-language']) : EMPTY_CONTEXT.languages,
    country: needs.country ? country(req) : null,
  };
}

/**
 * Accept-Language → the visitor's languages, most preferred first (q-values through
 * `negotiator`, the jshttp parser Express uses; q=0 dropped; ties keep the header's
 * order), lowercased ("en_US" read as "en-us"), each once. `*` and malformed entries are left out; no header is [].
 */
export function acceptedLanguages(header: string | undefined): readonly string[] {
  // negotiator reads a missing header as "*" (any language): that names none.
  if (!header) return EMPTY_CONTEXT.languages;
  const out: string[] = [];
  for (const tag of new Negotiator({ headers: { 'accept-language': header } }).languages()) {
    const lower = tag.toLowerCase().replace(/_/g, '-');
    if (LANGUAGE_TAG.test(lower) && !out.includes(lower)) out.push(lower);
    if (out.length === MAX_LANGUAGES) break;
  }
  return out;
}
