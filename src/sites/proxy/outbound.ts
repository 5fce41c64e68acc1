import { Agent } from 'undici';

import { guardedConnect } from '../../shared/guarded-lookup';

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
 * The dispatcher proxy rules send through: pooled keep-alive connections per origin
 * (a proxied request then costs no handshake), connect timeout, idle timeout of the
 * answer, and the address policy above (src/shared/guarded-lookup.ts).
 */
export function proxyDispatcher(options: OutboundOptions): Agent {
  return new Agent({
    bodyTimeout: options.idleTimeoutMs,
    // The overall deadline for the origin's headers is the proxy's own timer (SiteProxy).
    headersTimeout: 0,
    // A pooled connection is never older than what it was checked for; idle ones go after 4 s (undici's default).
    connect: guardedConnect(options, (host, address, reason) => new ProxyAddressRefused(host, address, reason)),
  });
}
