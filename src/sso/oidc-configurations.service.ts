import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { type CustomFetch, discover, guardedFetch, type oidc } from './oidc-client';

/** How long a provider's discovery document is reused: its keys rotate, but not every minute. */
const CACHE_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

interface Cached {
  key: string;
  at: number;
  configuration: Promise<oidc.Configuration>;
}

/**
 * The openid-client configuration of each workspace's provider: discovery on first use,
 * then reused for a few minutes, keyed by what it was made from, so a changed issuer,
 * client or secret (a new `updatedAt`) is discovered again at once.
 */
@Injectable()
export class OidcConfigurations {
  private readonly fetch: CustomFetch;
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly config: AppConfig) {
    this.fetch = guardedFetch({
      allowPrivateAddresses: config.SSO_ALLOW_PRIVATE_ADDRESSES,
      dnsServers: config.dnsServers,
      dnsTimeoutMs: config.DNS_TIMEOUT_MS,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
  }

  /** The URI the providers send people back to; the one to register with them. */
  get redirectUri(): string {
    return `${this.config.apiBaseUrl}/auth/sso/callback`;
  }

  /** Fresh discovery, uncached: what PUT …/sso checks before it saves. Rejects when the issuer is unreachable or not an OpenID provider. */
  discover(issuer: string, clientId: string, clientSecret: string): Promise<oidc.Configuration> {
    if (!this.config.SSO_ALLOW_PRIVATE_ADDRESSES && !/^https:\/\//i.test(issuer)) {
      return Promise.reject(new Error('the issuer must use https (SSO_ALLOW_PRIVATE_ADDRESSES=true allows http)'));
    }
    return discover(issuer, clientId, clientSecret, this.fetch, this.config.SSO_ALLOW_PRIVATE_ADDRESSES);
  }

  /** The workspace's configuration, from the cache while it is fresh and made from the same settings. */
  forWorkspace(workspaceId: string, settings: { issuer: string; clientId: string; updatedAt: Date }, secret: () => string): Promise<oidc.Configuration> {
    const key = `${settings.issuer}\n${settings.clientId}\n${settings.updatedAt.getTime()}`;
    const hit = this.cache.get(workspaceId);
    if (hit && hit.key === key && Date.now() - hit.at < CACHE_MS) return hit.configuration;
    const configuration = this.discover(settings.issuer, settings.clientId, secret());
    this.cache.set(workspaceId, { key, at: Date.now(), configuration });
    // A failed discovery is not kept: the next sign-in tries again.
    configuration.catch(() => {
      if (this.cache.get(workspaceId)?.configuration === configuration) this.cache.delete(workspaceId);
    });
    return configuration;
  }
}
