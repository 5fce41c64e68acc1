import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

import { Agent, buildConnector } from 'undici';

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

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A lookup for net.connect: every address of the name must pass the policy, or the
 * connection fails with ProxyAddressRefused (one private address among public ones is
 * enough to refuse: which one a connection takes is not ours to choose).
 */
export function guardedLookup(options: Pick<OutboundOptions, 'allowPrivateAddresses' | 'dnsServers' | 'dnsTimeoutMs'>) {
  const resolve = resolverOf(options.dnsServers, options.dnsTimeoutMs);
  return (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const family = typeof lookupOptions.family === 'number' ? lookupOptions.family : 0;
        const addresses = family === 0 ? found : found.filter((a) => a.family === family);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        if (!options.allowPrivateAddresses) {
          for (const a of addresses) {
            const refused = addressRefusal(a.address);
            if (refused) return callback(new ProxyAddressRefused(hostname, a.address, refused) as NodeJS.ErrnoException, []);
          }
        }
        if (lookupOptions.all) return callback(null, addresses);
        return callback(null, addresses[0].address, addresses[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

const NO_SUCH_HOST = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);

/** DNS_SERVERS' A and AAAA answers when they know the name, else the system's (getaddrinfo, /etc/hosts included). */
function resolverOf(servers: string[], timeoutMs: number): (host: string) => Promise<LookupAddress[]> {
  const system = (host: string) =>
    new Promise<LookupAddress[]>((resolve, reject) => systemLookup(host, { all: true, verbatim: true }, (err, list) => (err ? reject(err) : resolve(list))));
  if (servers.length === 0) return system;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers(servers);
  const family = (query: Promise<string[]>, version: 4 | 6) =>
    query.then(
      (list) => list.map((address) => ({ address, family: version })),
      (err: NodeJS.ErrnoException) => {
        if (err.code && NO_SUCH_HOST.has(err.code)) return [];
        throw err;
      },
    );
  return async (host) => {
    const answers = (await Promise.all([family(resolver.resolve4(host), 4), family(resolver.resolve6(host), 6)])).flat();
    return answers.length > 0 ? answers : system(host);
  };
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
