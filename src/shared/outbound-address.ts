import ipaddr from 'ipaddr.js';

/**
 * Which addresses the service may reach on a user's behalf (docs/security.md,
 * "Repository URLs"): the one rule for clones (src/git/repository-url.ts) and forge API
 * calls (src/forges/clients/outbound.ts). A repository URL is typed by a user, and the
 * requests to it leave from inside the operator's network: only global unicast addresses
 * pass, unless the operator allows private ones (GIT_ALLOW_PRIVATE_ADDRESSES: tests, a
 * forge on the LAN).
 */

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  loopback: 'a loopback address (this machine)',
  carrierGradeNat: 'a carrier-grade NAT address (RFC 6598)',
  private: 'a private address (RFC 1918)',
  uniqueLocal: 'a unique-local address (fc00::/7)',
  reserved: 'a reserved address',
  rfc6052: 'a NAT64 address (64:ff9b::/96), which reaches an IPv4 address decided elsewhere',
  '6to4': 'a 6to4 address (2002::/16), which reaches an IPv4 address decided elsewhere',
  teredo: 'a Teredo address (2001::/32), which reaches an IPv4 address decided elsewhere',
};

/** The deprecated IPv4-compatible form `::a.b.c.d` (RFC 4291): ipaddr.js calls it unicast, yet stacks that still honour it reach the IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** The local-use NAT64 prefix (RFC 8215), which ipaddr.js does not know. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

/**
 * Why an address may not be reached, or null when it may: only global unicast addresses
 * pass. An IPv4-mapped IPv6 address is judged as its IPv4 address; the IPv6 forms that
 * embed or translate to IPv4 (6to4, Teredo, NAT64, IPv4-compatible) are refused, since
 * which IPv4 address they reach is decided elsewhere. A zone id (`fe80::1%eth0`) is ignored.
 */
export function addressRefusal(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.split('%')[0]);
  } catch {
    return 'not an address';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `in the special-purpose range "${range}"`;
  if (parsed.kind() === 'ipv6') {
    // What ipaddr.js leaves as unicast (`::1` and `::` are named above).
    if ((parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return 'an IPv4-compatible address (::/96), which reaches an IPv4 address decided elsewhere';
    if ((parsed as ipaddr.IPv6).match(LOCAL_NAT64)) return RANGE_NAMES.rfc6052;
  }
  return null;
}

/** Whether an address is an ordinary public unicast one that requests may go to. */
export function isPublicAddress(address: string): boolean {
  return addressRefusal(address) === null;
}
