import { isIP } from 'node:net';

import { hostOnly } from '../config/api-host';
import { parsePreviewLabel, type PreviewTarget } from '../shared/preview-label';

export type HostRoute =
  | { kind: 'api' }
  /** `<label>.<SITES_DOMAIN>`: `slug` is the label, valid or not (an invalid one is a 404 page). */
  | { kind: 'site'; slug: string }
  /**
   * `<label>.<SITES_DOMAIN>` where the label has a preview label's shape
   * (src/shared/preview-label.ts): one deployment of a project, whatever is live.
   */
  | { kind: 'preview'; label: string; target: PreviewTarget }
  /** Any other name: served as a site when it is a verified custom domain. */
  | { kind: 'custom'; host: string };

export interface HostRules {
  sitesDomain: string;
  /** Hosts that always reach the API. Empty: every host that is not a site reaches it. */
  apiHosts: readonly string[];
}

/** Lowercase, without port or trailing dot; undefined for a missing or malformed Host. */
export function normaliseHost(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return undefined;
    return host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  if (colon >= 0) host = host.slice(0, colon);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (!host || host.length > 253 || !/^[a-z0-9._-]+$/.test(host)) return undefined;
  return host;
}

/**
 * Decides who answers a request by its Host: the API or a site. A site host never
 * reaches the API's routes, and a configured API host is never served as a site.
 */
export function routeHost(rawHost: string | undefined, rules: HostRules): HostRoute {
  const host = normaliseHost(rawHost);
  if (!host) return { kind: 'api' };
  // Loopback names are how the machine itself calls the app (health checks, the TLS
  // proxy's ask): they can never be a site, and reaching the API by them grants nothing.
  // An entry may carry a port (`api.example.com:8443`); `host` has none by now.
  if (rules.apiHosts.some((entry) => hostOnly(entry) === host) || isLoopbackHost(host)) return { kind: 'api' };
  const suffix = `.${rules.sitesDomain}`;
  if (host.endsWith(suffix)) {
    const label = host.slice(0, -suffix.length);
    const target = parsePreviewLabel(label);
    return target ? { kind: 'preview', label, target } : { kind: 'site', slug: label };
  }
  if (host === rules.sitesDomain || host === 'localhost' || isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
    return rules.apiHosts.length === 0 ? { kind: 'api' } : { kind: 'custom', host };
  }
  return { kind: 'custom', host };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || (host.startsWith('127.') && isIP(host) === 4);
}
