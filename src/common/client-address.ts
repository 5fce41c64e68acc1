import type { IncomingMessage } from 'node:http';
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
