import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

import { tooManyAttempts } from '../common/errors';
import { hostOnly } from '../config/api-host';
import { AppConfig } from '../config/app-config';
import { couldBeCustomDomain } from '../shared/domain-name';
import { normaliseHost, routeHost } from '../sites/host';
import { SiteCache } from '../sites/site-cache.service';

/** How long a refused name is answered from memory (unless a site or domain changes first). */
export const REFUSAL_TTL_MS = 60_000;
/** Refused names remembered at most: a scan of random names must not grow memory. */
export const REFUSALS_KEPT = 10_000;

/**
 * Caddy's on-demand TLS asks before it requests a certificate for a name. Only names
 * this service really answers for get one, so nobody can make the proxy request
 * certificates for arbitrary names (and burn the ACME rate limits).
 *
 * Anyone can make Caddy ask (a TLS handshake with any SNI name is enough), so the ask
 * must not let them load the database: a refused name is remembered for a while, and the
 * lookups that reach the database are rate-limited per instance (past the limit the ask
 * answers 429, which Caddy takes as a refusal; a legitimate name is asked again at its
 * next handshake).
 */
@Injectable()
export class TlsAskService implements OnModuleInit, OnModuleDestroy {
  private readonly refused = new LRUCache<string, true>({ max: REFUSALS_KEPT, ttl: REFUSAL_TTL_MS });
  /** Bumped by every invalidation: a lookup that raced one does not cache its refusal. */
  private generation = 0;
  private readonly lookups: RateLimiterMemory;
  private readonly forget = () => {
    this.generation++;
    this.refused.clear();
  };

  constructor(
    private readonly config: AppConfig,
    private readonly sites: SiteCache,
  ) {
    // In memory: the point is to spare PostgreSQL, and Caddy asks the instance beside it.
    this.lookups = new RateLimiterMemory({ keyPrefix: 'tls-ask', points: config.TLS_ASK_LOOKUPS_PER_MINUTE, duration: 60 });
  }

  onModuleInit(): void {
    // Every site or domain change, on this instance (at commit) or another (NOTIFY), and a
    // lost listener: a refused name may be served now. Refusals cannot be told apart by
    // project, so all go; the next asks cost one lookup each.
    this.sites.events.on('invalidated', this.forget);
  }

  onModuleDestroy(): void {
    this.sites.events.off('invalidated', this.forget);
  }

  async allowed(domain: string): Promise<boolean> {
    const host = normaliseHost(domain);
    if (!host || host !== domain.trim().toLowerCase()) return false;
    const apiHosts = this.config.apiHosts;
    if (apiHosts.some((entry) => hostOnly(entry) === host)) return true;
    const lookup = this.lookupOf(host, apiHosts);
    if (!lookup || this.refused.has(host)) return false;
    // A name the site cache already knows costs no query, so no budget: a flood of made-up
    // names must not keep a real site or a newly verified domain from its certificate.
    if (!this.sites.isCached(lookup.kind, lookup.name)) await this.takeLookup();
    const generation = this.generation;
    const allowed = (await lookup.read()) !== null;
    if (!allowed && generation === this.generation) this.refused.set(host, true);
    return allowed;
  }

  /** How the database would be asked whether `host` is served, or undefined for a name that is never served. */
  private lookupOf(host: string, apiHosts: string[]): { kind: 's' | 'd' | 'p'; name: string; read: () => ReturnType<SiteCache['bySlug']> } | undefined {
    // The same routing the site router uses, so the answer cannot drift from what is served.
    const route = routeHost(host, { sitesDomain: this.config.SITES_DOMAIN, apiHosts });
    if (route.kind === 'site') return { kind: 's', name: route.slug, read: () => this.sites.bySlug(route.slug) };
    // An existing deployment's preview address (an expired one too: it answers 410, over https).
    if (route.kind === 'preview') return { kind: 'p', name: route.label, read: () => this.sites.byPreview(route.label, route.target) };
    if (route.kind === 'custom' && couldBeCustomDomain(host)) return { kind: 'd', name: host, read: () => this.sites.byDomain(host) };
    return undefined;
  }

  private async takeLookup(): Promise<void> {
    try {
      await this.lookups.consume('lookups');
    } catch (err) {
      if (err instanceof RateLimiterRes) throw tooManyAttempts('Too many certificate asks for names not seen before', err.msBeforeNext);
      throw err;
    }
  }
}
