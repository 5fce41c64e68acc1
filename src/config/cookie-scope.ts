import { getDomain } from 'tldts';

import { hostOnly } from './api-host';

/** An API host whose parent domain a site's script can set cookies for. */
export interface SharedCookieParent {
  apiHost: string;
  /** The registrable domain both share (not a public suffix, so browsers let either set cookies for it). */
  parent: string;
}

/**
 * The API hosts that share a registrable domain with the sites. A page on
 * `<slug>.<SITES_DOMAIN>` may set a cookie for any of its parent domains that is not a
 * public suffix, and the API host receives the cookies of its own parents; so the two
 * are apart only when their registrable domains (Public Suffix List, private section
 * included: github.io, netlify.app and pages.dev are there for this reason) differ.
 * IP addresses and single-label names (localhost) have none and never match.
 */
export function apiHostsSharingCookies(apiHosts: readonly string[], sitesDomain: string): SharedCookieParent[] {
  const options = { allowPrivateDomains: true };
  // Any label stands for a slug: when SITES_DOMAIN is itself a public suffix, each site is its own registrable domain.
  const siteParent = getDomain(`slug.${sitesDomain}`, options);
  if (!siteParent) return [];
  const hosts = [...new Set(apiHosts.map(hostOnly).filter(Boolean))];
  return hosts.filter((host) => getDomain(host, options) === siteParent).map((apiHost) => ({ apiHost, parent: siteParent }));
}
