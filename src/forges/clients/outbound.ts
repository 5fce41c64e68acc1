import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

import { Agent, buildConnector, type Dispatcher, fetch as undiciFetch } from 'undici';

import { isPublicAddress } from '../../shared/outbound-address';

/**
 * Where forge API calls may go. The forge's address comes from the project's repository
 * URL, which a user typed: calls to loopback, private, link-local (the cloud metadata
 * address), unique-local or otherwise special addresses are refused unless the operator
 * allows them (GIT_ALLOW_PRIVATE_ADDRESSES): the same rule as clones follow
 * (src/shared/outbound-address.ts). Checked when the connection
 * is made, on the address actually connected to, so a name that resolves to a public
 * address when checked and a private one when used (DNS rebinding) gains nothing.
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

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new AddressNotAllowedError(hostname, refused.address) as NodeJS.ErrnoException, []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    return callback(null, first.address, first.family);
  });
}

const dispatchers = new Map<boolean, Dispatcher>();

/** The dispatcher every forge client sends through: one per policy, so clients made per build share its connection pool. */
export function forgeDispatcher(options: { allowPrivateAddresses: boolean }): Dispatcher {
  let dispatcher = dispatchers.get(options.allowPrivateAddresses);
  if (!dispatcher) dispatchers.set(options.allowPrivateAddresses, (dispatcher = makeDispatcher(options.allowPrivateAddresses)));
  return dispatcher;
}

function makeDispatcher(allowPrivateAddresses: boolean): Dispatcher {
  if (allowPrivateAddresses) return new Agent();
  const connect = buildConnector({ lookup: guardedLookup as never });
  return new Agent({
    connect(opts, callback) {
      // A literal address is connected to without a lookup: judge it here.
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0 && !isPublicAddress(host)) {
        callback(new AddressNotAllowedError(opts.hostname, host), null);
        return;
      }
      connect(opts, callback);
    },
  });
}

/** `fetch` through a dispatcher, for clients that take a fetch function. */
export function fetchThrough(dispatcher: Dispatcher): typeof fetch {
  return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
}
