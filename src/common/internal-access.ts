import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

import { isForwarded, isLoopback } from './client-address';

export { isLoopback };

/**
 * Who may call the internal endpoints (`/internal/*`, used by the TLS proxy's `ask`):
 * a direct caller on this machine, or one that presents INTERNAL_TOKEN as a bearer.
 *
 * "Direct" matters: a reverse proxy on the same host (Caddy in the app's network
 * namespace) also connects from loopback, on behalf of anyone on the internet. Such a
 * proxied request carries X-Forwarded-For (Caddy, nginx and every load balancer add it),
 * so a loopback connection with a forwarding header is treated as external.
 */
export function isInternalCaller(remoteAddress: string | undefined, headers: IncomingHttpHeaders, token: string | undefined): boolean {
  if (token && bearerMatches(headers.authorization, token)) return true;
  return !isForwarded(headers) && isLoopback(remoteAddress);
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
