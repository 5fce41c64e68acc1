import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

import { boundedSystemLookup, REPOSITORY_LOOKUPS } from '../shared/guarded-lookup';
import { addressRefusal } from '../shared/outbound-address';

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
  if (TRANSPORT_PREFIX.test(input)) {
    const transport = input.slice(0, input.indexOf('::'));
    throw new RepositoryNotAllowed(`git's "${transport}::" transport runs a remote helper; only https:// URLs are cloned`);
  }
  if (/[\u0000-\u0020\u007f-\u009f]/.test(input)) throw new RepositoryNotAllowed('it holds a space or a control character');
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

/**
 * Why an address may not be cloned from, or null when it may: the service's one address
 * policy (src/shared/outbound-address.ts), which forge API calls follow too.
 */
export function refusedAddress(address: string, policy: RepositoryPolicy): string | null {
  if (policy.GIT_ALLOW_PRIVATE_ADDRESSES) return null;
  return addressRefusal(address);
}

export type Lookup = (host: string) => Promise<string[]>;

const NO_SUCH_HOST = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/** Rejects after `ms` with ETIMEOUT (and calls `onTimeout`), unless `work` settles first. */
async function within<T>(ms: number, work: Promise<T>, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' }));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every address the host may be reached at, within `timeoutMs`: the system resolver's
 * (getaddrinfo, /etc/hosts included), as git's own connection resolves, and, when
 * DNS_SERVERS is set, those servers' A and AAAA answers too (the resolvers the service
 * uses elsewhere, and what tests point at a DNS server of their own). Every one of them
 * must pass. Rejects with ENOTFOUND only when no resolver knows the name.
 */
export function hostLookup(timeoutMs: number, dnsServers: string[]): Lookup {
  return async (host) => {
    // Within a share of libuv's threads of its own (src/shared/guarded-lookup.ts): a host whose
    // nameserver never answers must not hold threads that file reads and hashing need.
    const system = boundedSystemLookup(host, timeoutMs, REPOSITORY_LOOKUPS).then((answers) => answers.map((a) => a.address));
    const configured =
      dnsServers.length === 0
        ? []
        : [
            (async () => {
              const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
              resolver.setServers(dnsServers);
              const family = (query: Promise<string[]>) =>
                query.catch((err: NodeJS.ErrnoException) => {
                  if (err.code && NO_SUCH_HOST.has(err.code)) return [];
                  throw err;
                });
              const answers = await within(timeoutMs, Promise.all([family(resolver.resolve4(host)), family(resolver.resolve6(host))]), () => resolver.cancel());
              if (answers.flat().length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
              return answers.flat();
            })(),
          ];
    const results = await Promise.allSettled([system, ...configured]);
    const addresses = [...new Set(results.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])))];
    if (addresses.length > 0) return addresses;
    const failures = results.map((r) => (r.status === 'rejected' ? (r.reason as NodeJS.ErrnoException) : undefined)).filter((e) => e !== undefined);
    throw failures.find((e) => !NO_SUCH_HOST.has(e.code ?? '')) ?? failures[0] ?? Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  };
}

/** The lookup the service uses (hostLookup with DNS_TIMEOUT_MS and DNS_SERVERS): the settings' check and the pipeline's re-check before each clone. */
export function repositoryLookup(config: { DNS_TIMEOUT_MS: number; DNS_SERVERS?: string }): Lookup {
  const servers = (config.DNS_SERVERS ?? '')
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean);
  return hostLookup(config.DNS_TIMEOUT_MS, servers);
}

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
    // Named by its kind, not the address: whoever types URLs must not map the operator's internal names to addresses.
    if (refused) throw new RepositoryNotAllowed(`the host ${checked.host} resolves to ${refused}`);
  }
  return { ...checked, addresses };
}
