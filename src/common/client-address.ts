import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

import proxyAddr from 'proxy-addr';

/** Whether the hop at `addr` (0: the socket's peer, then X-Forwarded-For from the right) is a proxy of ours. */
export type TrustProxy = (addr: string, hop: number) => boolean;

/** More trusted hops than any real chain of proxies: a larger count is a typo. */
export const MAX_PROXY_HOPS = 10;

const TRUE = ['true', 'yes', 'on'];
const FALSE = ['false', 'no', 'off'];

/**
 * TRUST_PROXY as a trust function, the same one Express's `trust proxy` gets (so
 * `clientAddress` and `req.ip` agree), or an error message saying what is wrong.
 *
 * - `false` (or `0`): no proxy; the socket's peer is the client.
 * - `true`: one hop, the proxy right in front of the app (Caddy of the shipped Caddyfile,
 *   which replaces X-Forwarded-For). Not Express's `true` (trust every hop, i.e. the
 *   first entry), which takes whatever a client behind a CDN wrote there.
 * - a count `n` (1..10): the last `n` hops are proxies; the address before them is the client.
 * - a comma list of proxy addresses, CIDR ranges or proxy-addr's names
 *   (`loopback`, `linklocal`, `uniquelocal`): hops from these are proxies.
 */
export function parseTrustProxy(setting: string): TrustProxy | string {
  const value = setting.trim().toLowerCase();
  if (value === '' || FALSE.includes(value)) return hops(0);
  if (TRUE.includes(value)) return hops(1);
  if (/^\d+$/.test(value)) {
    const count = Number(value);
    return count <= MAX_PROXY_HOPS ? hops(count) : `TRUST_PROXY must be at most ${MAX_PROXY_HOPS} hops, got ${count}`;
  }
  const entries = value.split(',').map((s) => s.trim());
  try {
    if (entries.some((e) => e === '')) throw new TypeError('an empty entry');
    return proxyAddr.compile(entries);
  } catch (err) {
    return `TRUST_PROXY must be true, false, a hop count or a comma list of proxy addresses/CIDRs: ${(err as Error).message} in "${setting}"`;
  }
}

function hops(count: number): TrustProxy {
  return (_addr, hop) => hop < count;
}

/**
 * The client's address for rate limits and logs: the first hop from the right that is
 * not a trusted proxy, as Express's `req.ip` with the same trust function. Only an
 * address counts: should that hop's entry be anything else (a proxy that passes the
 * header on untouched, more hops configured than there are), the nearest address
 * before it is taken instead, so a client cannot pick its own rate-limit key.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  // Node detaches the socket from a request whose connection has closed (the request log
  // reads the address when the answer ends); proxy-addr would throw on it.
  if (!req.socket) return 'unknown';
  // No proxy of ours in front (the default): the peer is the client, and the header,
  // whatever it says, need not be parsed. proxy-addr would answer the same.
  const peer = req.socket.remoteAddress;
  if (peer !== undefined && !trust(peer, 0)) return peer;
  const chain = proxyAddr.all(req, trust);
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i] && isIP(chain[i]) !== 0) return chain[i];
  return 'unknown';
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * Whether a proxy forwarded the request for someone else: Caddy, nginx and every load
 * balancer add one of these, so a loopback peer that sends one is not a local caller.
 */
export function isForwarded(headers: IncomingHttpHeaders): boolean {
  return headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined || headers['x-real-ip'] !== undefined;
}
