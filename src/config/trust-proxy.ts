import proxyAddr from 'proxy-addr';

/*
 * TRUST_PROXY's parser lives with the configuration that validates it (config/ is the
 * lowest layer and imports nothing of src/); common/client-address.ts applies it.
 */

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
