import { isIP, isIPv6 } from 'node:net';

/** Bits of an address kept where one is written down: a network, not a person's connection. */
export const KEPT_PREFIX = { ipv4: 24, ipv6: 48 } as const;

/**
 * An IPv6 address in canonical text (RFC 5952: lowercase, leading zeros dropped, the
 * longest run of zero groups as `::`, an embedded IPv4 part as hex) as the WHATWG URL
 * parser writes it. No zone id.
 */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
}

/** The eight 16-bit groups of an IPv6 address. */
export function ipv6Groups(address: string): number[] {
  const [head, tail] = canonicalIpv6(address).split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16));
}

/**
 * The network an address belongs to, as CIDR text: IPv4 to its /24 (`203.0.113.0/24`),
 * IPv6 to its /48 (`2001:db8:abcd::/48`, a site's allocation), an IPv4-mapped IPv6
 * address (`::ffff:203.0.113.77`, a dual-stack socket's view of an IPv4 client) as the
 * IPv4 one it is. For logs and audit lines, which should say where a request came from
 * without keeping who sent it. Anything that is not an address is `unknown`, never echoed.
 */
export function addressPrefix(address: string | undefined): string {
  const family = address ? isIP(address) : 0;
  if (family === 0) return 'unknown';
  let ipv4 = family === 4 ? address!.split('.').map(Number) : undefined;
  if (!ipv4) {
    const groups = ipv6Groups(address!);
    if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) ipv4 = [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff];
    else return `${canonicalIpv6([...groups.slice(0, 3), 0, 0, 0, 0, 0].map((g) => g.toString(16)).join(':'))}/${KEPT_PREFIX.ipv6}`;
  }
  return `${ipv4.slice(0, 3).join('.')}.0/${KEPT_PREFIX.ipv4}`;
}

/**
 * What one client is counted under (connection caps, login and mail throttles): its IPv4 address (an IPv4-mapped
 * IPv6 one unwrapped), or the /64 of an IPv6 address, since one host commonly holds a
 * whole /64 and could otherwise use a fresh address per connection or per login attempt.
 */
export function addressKey(address: string): string {
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.toLowerCase().split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  // An embedded IPv4 tail counts as two groups; it lies past the first four anyway.
  const groups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const full = [...left, ...Array<string>(Math.max(0, 8 - left.length - groups)).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
