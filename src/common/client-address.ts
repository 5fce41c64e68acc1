import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The client's address for rate limits: the first X-Forwarded-For entry behind a
 * trusted proxy (TRUST_PROXY), else the socket's peer. Only an address counts: any
 * other text would let a client pick its own rate-limit key.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first && isIP(first) !== 0) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
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
