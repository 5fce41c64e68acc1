import { type CacheTagHeader, cacheTagHeaderNames } from './cache-tag-headers';
import { EnvironmentVariables } from './env.schema';
import { instanceMemory, siteCacheBudgetBytes } from './site-cache-budget';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';

/**
 * The validated configuration of one app instance. Injected by class, so a test can
 * start two instances with different settings in one process without touching
 * process.env.
 */
export class AppConfig extends EnvironmentVariables {
  static from(env: EnvironmentVariables): AppConfig {
    return Object.assign(new AppConfig(), env);
  }

  get isTest(): boolean {
    return this.NODE_ENV === 'test';
  }

  private trustProxyFn?: TrustProxy;

  /** TRUST_PROXY compiled (validated by the schema): for `clientAddress` and Express's `trust proxy` alike. */
  get trustProxy(): TrustProxy {
    if (!this.trustProxyFn) {
      const parsed = parseTrustProxy(this.TRUST_PROXY);
      if (typeof parsed === 'string') throw new Error(parsed);
      this.trustProxyFn = parsed;
    }
    return this.trustProxyFn;
  }

  private siteCacheBytesValue?: number;

  /** SITE_CACHE_MB in bytes, or its default from the instance's memory (site-cache-budget.ts). */
  get siteCacheBytes(): number {
    return (this.siteCacheBytesValue ??= siteCacheBudgetBytes(this.SITE_CACHE_MB, instanceMemory()));
  }

  get apiHosts(): string[] {
    return (this.API_HOSTS ?? '').split(',').filter(Boolean);
  }

  /** DNS_SERVERS as a list (empty: the system's resolver). */
  get dnsServers(): string[] {
    return (this.DNS_SERVERS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  /** SITE_CACHE_TAG_HEADERS as header names, or its default (env.schema.ts). */
  get cacheTagHeaders(): CacheTagHeader[] {
    return cacheTagHeaderNames(this.SITE_CACHE_TAG_HEADERS, this.SITE_CHANGE_WEBHOOK_URL !== undefined);
  }

  /** The Strict-Transport-Security value, or undefined when answers are not served over https. */
  get hstsHeader(): string | undefined {
    return this.PUBLIC_SCHEME === 'https' && this.HSTS_MAX_AGE_SECONDS > 0 ? `max-age=${this.HSTS_MAX_AGE_SECONDS}` : undefined;
  }

  /** Port shown in public URLs, or undefined when it is the scheme's default. */
  get publicPort(): number | undefined {
    const port = this.PUBLIC_PORT ?? (this.SITES_DOMAIN === 'localhost' ? this.PORT : undefined);
    if (port === undefined) return undefined;
    if ((this.PUBLIC_SCHEME === 'http' && port === 80) || (this.PUBLIC_SCHEME === 'https' && port === 443)) {
      return undefined;
    }
    return port;
  }

  /** Public base of the API (and the dashboard under /app), for links sent by mail; no trailing slash. */
  get apiBaseUrl(): string {
    if (this.PUBLIC_API_URL) return this.PUBLIC_API_URL.replace(/\/+$/, '');
    const host = this.apiHosts[0] ?? this.SITES_DOMAIN;
    const port = /:\d+$/.test(host) ? undefined : this.publicPort;
    return `${this.PUBLIC_SCHEME}://${host}${port ? `:${port}` : ''}`;
  }

  /** The From of every mail. */
  get mailFrom(): string {
    return this.MAIL_FROM ?? `${this.PRODUCT_NAME} <no-reply@${(this.apiHosts[0] ?? this.SITES_DOMAIN).replace(/:\d+$/, '')}>`;
  }

  /** Public base address of a project's site, e.g. https://my-site.example.app */
  siteUrl(slug: string): string {
    const port = this.publicPort;
    return `${this.PUBLIC_SCHEME}://${slug}.${this.SITES_DOMAIN}${port ? `:${port}` : ''}`;
  }
}
