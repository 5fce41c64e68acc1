import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { couldBeCustomDomain } from '../domains/domain-name';
import { normaliseHost, routeHost } from '../sites/host';
import { SiteCache } from '../sites/site-cache.service';

/**
 * Caddy's on-demand TLS asks before it requests a certificate for a name. Only names
 * this service really answers for get one, so nobody can make the proxy request
 * certificates for arbitrary names (and burn the ACME rate limits).
 */
@Injectable()
export class TlsAskService {
  constructor(
    private readonly config: AppConfig,
    private readonly sites: SiteCache,
  ) {}

  async allowed(domain: string): Promise<boolean> {
    const host = normaliseHost(domain);
    if (!host || host !== domain.trim().toLowerCase()) return false;
    const apiHosts = this.config.apiHosts;
    if (apiHosts.includes(host)) return true;
    // The same routing the site router uses, so the answer cannot drift from what is served.
    const route = routeHost(host, { sitesDomain: this.config.SITES_DOMAIN, apiHosts });
    if (route.kind === 'site') return (await this.sites.bySlug(route.slug)) !== null;
    // An existing deployment's preview address (an expired one too: it answers 410, over https).
    if (route.kind === 'preview') return (await this.sites.byPreview(route.label, route.target)) !== null;
    if (route.kind === 'custom' && couldBeCustomDomain(host)) return (await this.sites.byDomain(host)) !== null;
    return false;
  }
}
