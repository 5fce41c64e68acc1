import { isIP } from 'node:net';

import { Agent, buildConnector } from 'undici';

import { guardedLookup as sharedGuardedLookup } from '../../shared/guarded-lookup';
import { addressRefusal } from '../../shared/outbound-address';

/**
 * Where proxy rules may connect. A rule's origin is typed by a site's author, and the
 * request leaves from inside the operator's network: only global unicast addresses are
 * reached (src/shared/outbound-address.ts, the rule clones and forge calls follow), unless
 * the operator allows private ones (PROXY_ALLOW_PRIVATE_ADDRESSES). Judged inside the
 * connection's own lookup, on the addresses the socket is then given, so a name that is
 * public when a deploy is checked and private when a visitor asks (DNS rebinding) gains
 * nothing: there is no earlier check to race.
 */

/** A connection the address policy refused: answered 502, never retried. */
export class ProxyAddressRefused extends Error {
  readonly code = 'PROXY_ADDRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${host === address ? address : `${host} resolves to ${address}, which`} is ${reason}: proxy rules may not reach it (PROXY_ALLOW_PRIVATE_ADDRESSES)`);
  }
}

export interface OutboundOptions {
  allowPrivateAddresses: boolean;
  connectTimeoutMs: number;
  /** Largest pause of the origin's answer once it has started (undici's bodyTimeout). */
  idleTimeoutMs: number;
  /** DNS_SERVERS: asked first when set (the resolvers the service uses elsewhere); the system's resolver otherwise. */
  dnsServers: string[];
  dnsTimeoutMs: number;
}

/**
 * A lookup for net.connect: every address of the name must pass the policy, or the
 * connection fails with ProxyAddressRefused (src/shared/guarded-lookup.ts).
 */
export function guardedLookup(options: Pick<OutboundOptions, 'allowPrivateAddresses' | 'dnsServers' | 'dnsTimeoutMs'>) {
  return sharedGuardedLookup(options, (host, address, reason) => new ProxyAddressRefused(host, address, reason));
}

/**
 * The dispatcher proxy rules send through: pooled keep-alive connections per origin
 * (a proxied request then costs no handshake), connect timeout, idle timeout of the
 * answer, and the address policy above. A literal address in the URL is connected to
 * without a lookup, so it is judged here before the connector runs.
 */
export function proxyDispatcher(options: OutboundOptions): Agent {
  const connector = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup(options) as never });
  return new Agent({
    bodyTimeout: options.idleTimeoutMs,
    // The overall deadline for the origin's headers is the proxy's own timer (SiteProxy).
    headersTimeout: 0,
    // A pooled connection is never older than what it was checked for; idle ones go after 4 s (undici's default).
    connect(opts, callback) {
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      if (!options.allowPrivateAddresses && isIP(host) !== 0) {
        const refused = addressRefusal(host);
        if (refused) {
          callback(new ProxyAddressRefused(host, host, refused), null);
          return;
        }
      }
      connector(opts, callback);
    },
  });
}
