import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

import proxyAddr from 'proxy-addr';

import { type TrustProxy } from '../config/trust-proxy';

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
