import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

import { buildConnector } from 'undici';

import { addressRefusal } from './outbound-address';

/**
 * The connect-time address check of what the service fetches on a user's behalf (proxy
 * rules in src/sites/proxy/outbound.ts, outgoing webhooks in src/webhooks/, SSO providers
 * in src/sso/oidc-client.ts, forge API calls in src/forges/clients/outbound.ts): judged inside
 * the connection's own lookup, on the addresses the socket is then given, so a name that
 * is public when checked and private when used (DNS rebinding) gains nothing.
 */

export interface GuardedLookupOptions {
  allowPrivateAddresses: boolean;
  /** DNS_SERVERS: asked first when set; the system's resolver otherwise. */
  dnsServers: string[];
  dnsTimeoutMs: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The error a refused connection fails with: named by the caller (its message names its own setting). */
export type Refusal = (host: string, address: string, reason: string) => Error;

/**
 * undici's `connect` for an Agent that goes only where the policy lets it: a name is
 * judged in its lookup (guardedLookup), and a literal address in the URL, which undici
 * connects to without a lookup, is judged here.
 */
export function guardedConnect(options: GuardedLookupOptions & { connectTimeoutMs?: number }, refused: Refusal): buildConnector.connector {
  const connector = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup(options, refused) as never });
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivateAddresses && isIP(host) !== 0) {
      const reason = addressRefusal(host);
      if (reason) return callback(refused(host, host, reason), null);
    }
    connector(opts, callback);
  };
}

/**
 * A lookup for net.connect: every address of the name must pass the policy, or the
 * connection fails with the caller's `refused` error (one private address among public
 * ones is enough to refuse: which one a connection takes is not ours to choose).
 */
export function guardedLookup(options: GuardedLookupOptions, refused: Refusal) {
  const resolve = resolverOf(options.dnsServers, options.dnsTimeoutMs);
  return (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const family = typeof lookupOptions.family === 'number' ? lookupOptions.family : 0;
        const addresses = family === 0 ? found : found.filter((a) => a.family === family);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        if (!options.allowPrivateAddresses) {
          for (const a of addresses) {
            const reason = addressRefusal(a.address);
            if (reason) return callback(refused(hostname, a.address, reason) as NodeJS.ErrnoException, []);
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

/**
 * getaddrinfo runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says more),
 * which file reads and password hashing share, and a name whose nameserver never answers
 * holds its thread for the system resolver's whole timeout, tries included. So each kind of
 * lookup gets a share: at most `max` run at once, the others wait in line (at most
 * `maxWaiting`; past it a lookup fails at once, try again later).
 */
export class LookupPool {
  running = 0;
  readonly waiting: (() => void)[] = [];

  constructor(
    readonly max: number,
    readonly maxWaiting: number,
  ) {}
}

/**
 * What the service fetches on a user's behalf (proxy rules, webhooks, SSO, forge calls): a
 * site's proxy rule may name a host with a dead nameserver on purpose, so these share two
 * threads, the process over.
 */
const OUTBOUND_LOOKUPS = new LookupPool(2, 256);

/**
 * Repository checks (a Git settings save, each build's re-check before cloning): a thread of
 * their own, so a proxy rule's dead nameserver filling the outbound share cannot fail every
 * tenant's builds.
 */
export const REPOSITORY_LOOKUPS = new LookupPool(1, 256);

function lookupError(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * The system's answer (getaddrinfo, /etc/hosts included), within `pool`'s share above,
 * given up on after `timeoutMs` (waiting in line included). A lookup given up on keeps its
 * thread, and its place in the count, until getaddrinfo returns.
 */
export function boundedSystemLookup(host: string, timeoutMs: number, pool: LookupPool = OUTBOUND_LOOKUPS): Promise<LookupAddress[]> {
  return new Promise<LookupAddress[]>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const start = () => {
      // Given up on while waiting is taken out of the line; should one still be called, it passes its turn on.
      if (settled) return pool.waiting.shift()?.();
      pool.running++;
      systemLookup(host, { all: true, verbatim: true }, (err, list) => {
        release(pool);
        settle(() => (err ? reject(err) : resolve(list)));
      });
    };
    const timer = setTimeout(() => {
      const waiting = pool.waiting.indexOf(start);
      if (waiting !== -1) pool.waiting.splice(waiting, 1);
      settle(() => reject(lookupError(`${host}: no answer from the system's name resolver within ${timeoutMs} ms`, 'ETIMEOUT')));
    }, timeoutMs);
    if (pool.running < pool.max) return start();
    if (pool.waiting.length >= pool.maxWaiting) {
      return settle(() => reject(lookupError(`${host}: too many name lookups under way, try again later`, 'EAI_AGAIN')));
    }
    pool.waiting.push(start);
  });
}

function release(pool: LookupPool): void {
  pool.running--;
  const next = pool.waiting.shift();
  if (next) next();
}

/** The bounded outbound lookups under way and waiting (tests). */
export function systemLookupLoad(pool: LookupPool = OUTBOUND_LOOKUPS): { running: number; waiting: number } {
  return { running: pool.running, waiting: pool.waiting.length };
}

/** DNS_SERVERS' A and AAAA answers when they know the name, else the system's (getaddrinfo, /etc/hosts included). */
export function resolverOf(servers: string[], timeoutMs: number): (host: string) => Promise<LookupAddress[]> {
  const system = (host: string) => boundedSystemLookup(host, timeoutMs);
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
