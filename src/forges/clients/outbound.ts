import { Agent, type Dispatcher, fetch as undiciFetch } from 'undici';

import { guardedConnect } from '../../shared/guarded-lookup';
import { isPublicAddress } from '../../shared/outbound-address';

/**
 * Where forge API calls may go. The forge's address comes from the project's repository
 * URL, which a user typed: calls to loopback, private, link-local (the cloud metadata
 * address), unique-local or otherwise special addresses are refused unless the operator
 * allows them (GIT_ALLOW_PRIVATE_ADDRESSES): the same rule as clones follow
 * (src/shared/outbound-address.ts). Checked when the connection
 * is made, on the address actually connected to, so a name that resolves to a public
 * address when checked and a private one when used (DNS rebinding) gains nothing; names
 * are looked up as for every other such call (src/shared/guarded-lookup.ts: DNS_SERVERS,
 * DNS_TIMEOUT_MS, and few system lookups at once, as a nameserver that never answers
 * holds a thread of libuv's small pool).
 */

/** A connection refused by the address policy (not retried: it will not change). */
export class AddressNotAllowedError extends Error {
  readonly code = 'ADDRESS_NOT_ALLOWED';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is a loopback, private, link-local or reserved address: forge API calls there are refused (GIT_ALLOW_PRIVATE_ADDRESSES)`,
    );
  }
}

/** The service's one address policy (src/shared/outbound-address.ts), as clones follow it. */
export { isPublicAddress };

export interface ForgeOutbound {
  allowPrivateAddresses: boolean;
  /** DNS_SERVERS (default: the system's resolver only). */
  dnsServers?: string[];
  /** DNS_TIMEOUT_MS (default 5 s). */
  dnsTimeoutMs?: number;
}

const dispatchers = new Map<string, Dispatcher>();

/** The dispatcher every forge client sends through: one per policy, so clients made per build share its connection pool. */
export function forgeDispatcher(options: ForgeOutbound): Dispatcher {
  const policy = { allowPrivateAddresses: options.allowPrivateAddresses, dnsServers: options.dnsServers ?? [], dnsTimeoutMs: options.dnsTimeoutMs ?? 5000 };
  const key = JSON.stringify(policy);
  let dispatcher = dispatchers.get(key);
  if (!dispatcher) {
    dispatcher = new Agent({ connect: guardedConnect(policy, (host, address) => new AddressNotAllowedError(host, address)) });
    dispatchers.set(key, dispatcher);
  }
  return dispatcher;
}

/** `fetch` through a dispatcher, for clients that take a fetch function. */
export function fetchThrough(dispatcher: Dispatcher): typeof fetch {
  return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
}
