import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

/**
 * Which repository URLs the service clones (docs/security.md, "Repository URLs"). A
 * clone is a request the service makes on a user's behalf, from inside the operator's
 * network: the URL must not reach a file, a command (`ext::`), the host's loopback or a
 * private or metadata address. Checked when the settings are saved and again before
 * each clone (DNS can change in between).
 */

/** Longer than any forge's clone URL; a limit keeps errors, logs and rows small. */
export const MAX_REPOSITORY_URL = 2048;

export interface RepositoryPolicy {
  /** GIT_ALLOW_PRIVATE_ADDRESSES: http:// and private, loopback and link-local addresses allowed (tests, a forge on the LAN). */
  GIT_ALLOW_PRIVATE_ADDRESSES: boolean;
}

/** A URL the policy refuses; `reason` completes "The repository URL is refused: …". */
export class RepositoryNotAllowed extends Error {
  constructor(readonly reason: string) {
    super(`The repository URL is refused: ${reason}`);
    this.name = 'RepositoryNotAllowed';
  }
}

/** The host's addresses could not be looked up (a resolver failure or time-out, not an answer). */
export class RepositoryLookupFailed extends Error {
  constructor(
    readonly host: string,
    readonly code: string,
  ) {
    super(`Could not look up the repository's host ${host} (${code}); try again`);
    this.name = 'RepositoryLookupFailed';
  }
}

/** A clone URL that passed the policy, in the one form it is stored and cloned in. */
export interface CheckedRepository {
  /** WHATWG-normalised URL (`http://0x7f.1/` becomes `http://127.0.0.1/`): what was checked is what git gets. */
  url: string;
  /** The host name, or the address without brackets. */
  host: string;
  /** The port git connects to. */
  port: number;
}

/** What the host resolved to when the URL passed: a clone can pin these (`http.curloptResolve`) so DNS cannot change between check and connect. */
export interface ResolvedRepository extends CheckedRepository {
  addresses: string[];
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** git's `<transport>::<address>` form (`ext::sh -c …`, `fd::…`): a remote helper, which may run commands. */
const TRANSPORT_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*::/;
/** git's scp-like syntax `user@host:path` (ssh), recognised by git when there is no `://` and a `:` before any `/`. */
const SCP_LIKE = /^[^/:]+:/;

/**
 * The syntax checks, no DNS: scheme, transport, credentials, fragment, control
 * characters, length. Returns the normalised URL, or throws RepositoryNotAllowed.
 */
export function checkRepositoryUrl(input: string, policy: RepositoryPolicy): CheckedRepository {
  if (input.length === 0) throw new RepositoryNotAllowed('it is empty');
  if (input.length > MAX_REPOSITORY_URL) throw new RepositoryNotAllowed(`it is longer than ${MAX_REPOSITORY_URL} characters`);

  if (/[\u0000-\u0020\u007f-\u009f]/.test(input)) throw new RepositoryNotAllowed('it holds a space or a control character');
  if (TRANSPORT_PREFIX.test(input)) {
    const transport = input.slice(0, input.indexOf('::'));
    throw new RepositoryNotAllowed(`git's "${transport}::" transport runs a remote helper; only https:// URLs are cloned`);
  }
  const scheme = SCHEME.exec(input)?.[1]?.toLowerCase();
  if (!scheme || !input.slice(scheme.length).startsWith('://')) {
    if (!input.includes('://') && SCP_LIKE.test(input)) {
      throw new RepositoryNotAllowed('scp-like "user@host:path" addresses use ssh; give the https:// clone URL (and an accessToken for a private repository)');
    }
    throw new RepositoryNotAllowed('it is not a URL; give the https:// clone URL, e.g. https://github.com/owner/repo.git');
  }
  const allowed = policy.GIT_ALLOW_PRIVATE_ADDRESSES ? ['https', 'http'] : ['https'];
  if (!allowed.includes(scheme)) {
    const why =
      scheme === 'http'
        ? 'http:// is not encrypted (the access token and the code would travel in clear); use https://'
        : `the ${scheme}:// transport is not allowed; only https:// URLs are cloned`;
    throw new RepositoryNotAllowed(why);
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new RepositoryNotAllowed('it is not a valid URL');
  }
  if (url.username || url.password) {
    throw new RepositoryNotAllowed('it holds credentials (user:password@); give the token in accessToken, which is stored encrypted');
  }
  if (input.includes('#')) throw new RepositoryNotAllowed('it holds a fragment (#…); a clone URL has none');
  if (!url.hostname) throw new RepositoryNotAllowed('it names no host');
  if (url.pathname === '/' || url.pathname === '') throw new RepositoryNotAllowed('it names no repository (the path is empty)');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port ? Number(url.port) : scheme === 'https' ? 443 : 80;
  if (isIP(host)) {
    const refused = refusedAddress(host, policy);
    if (refused) throw new RepositoryNotAllowed(`${host} is ${refused}`);
  }
  return { url: url.href, host, port };
}

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
};

/**
 * Why an address may not be cloned from, or null when it may. Only global unicast
 * addresses pass; an IPv4-mapped IPv6 address is judged as its IPv4 address, and the
 * IPv6 forms that embed or translate to IPv4 (6to4, Teredo, NAT64) are refused, since
 * which IPv4 address they reach is decided elsewhere.
 */
export function refusedAddress(address: string, policy: RepositoryPolicy): string | null {
  if (policy.GIT_ALLOW_PRIVATE_ADDRESSES) return null;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.split('%')[0]);
  } catch {
    return 'not an address';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'unicast') return null;
  return RANGE_NAMES[range] ?? `in the special-purpose range "${range}"`;
}

export type Lookup = (host: string) => Promise<string[]>;

/**
 * The system resolver (getaddrinfo, /etc/hosts included), as git's own connection
 * resolves: a check against another resolver could pass a name git then sends to
 * 127.0.0.1. Bounded by `timeoutMs`.
 */
export function systemLookup(timeoutMs: number): Lookup {
  return async (host) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' })), timeoutMs);
    });
    try {
      const answers = await Promise.race([dns.lookup(host, { all: true, verbatim: true }), deadline]);
      return answers.map((a) => a.address);
    } finally {
      clearTimeout(timer);
    }
  };
}

const NO_SUCH_HOST = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * The whole policy: the syntax checks, then every address the host resolves to.
 * Throws RepositoryNotAllowed (the URL or an address is refused, or the host does not
 * exist) or RepositoryLookupFailed (the resolver did not answer). The pipeline calls
 * this again right before each clone.
 */
export async function assertRepositoryAllowed(input: string, policy: RepositoryPolicy, lookup: Lookup): Promise<ResolvedRepository> {
  const checked = checkRepositoryUrl(input, policy);
  if (isIP(checked.host)) return { ...checked, addresses: [checked.host] };
  let addresses: string[];
  try {
    addresses = await lookup(checked.host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    if (NO_SUCH_HOST.has(code)) throw new RepositoryNotAllowed(`the host ${checked.host} does not exist (no address in DNS)`);
    throw new RepositoryLookupFailed(checked.host, code);
  }
  if (addresses.length === 0) throw new RepositoryNotAllowed(`the host ${checked.host} does not exist (no address in DNS)`);
  for (const address of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused) throw new RepositoryNotAllowed(`the host ${checked.host} resolves to ${address}, ${refused}`);
  }
  return { ...checked, addresses };
}
