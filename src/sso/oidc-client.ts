import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';

import { guardedConnect } from '../shared/guarded-lookup';

/**
 * A provider address the service may not reach (SSO_ALLOW_PRIVATE_ADDRESSES). Named by
 * its kind, not the address: the owner typing issuers must not map the operator's
 * internal names to their addresses.
 */
export class SsoAddressRefused extends Error {
  constructor(host: string, address: string, reason: string) {
    super(`${host === address ? `${address} is` : `${host} resolves to`} ${reason}: an SSO issuer may not be reached there (SSO_ALLOW_PRIVATE_ADDRESSES)`);
  }
}

/** Largest answer read from a provider: discovery documents, key sets and token answers are a few KB. */
export const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/** Statuses whose answer has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * The answer with its body read in full, refused past `limit` bytes: openid-client reads
 * bodies whole (`response.json()`), and an issuer streaming gigabytes would fill the API's
 * memory.
 */
async function capped(answer: Response, limit: number): Promise<Response> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (answer.body) {
    const reader = answer.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`the provider's answer is larger than ${limit / 1024 / 1024} MB`);
      }
      chunks.push(value);
    }
  }
  const body = NULL_BODY.has(answer.status) ? null : Buffer.concat(chunks);
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}

export interface OidcOutbound {
  /** true: loopback, private and link-local addresses, and plain http (tests, a provider on the LAN). */
  allowPrivateAddresses: boolean;
  dnsServers: string[];
  dnsTimeoutMs: number;
  /** Longest one request to the provider may take (ms). */
  timeoutMs: number;
}

/**
 * The fetch openid-client talks to providers through. The issuer is typed by a
 * workspace owner and fetched from inside the operator's network, so it gets the rule
 * of every other fetch made on a user's behalf (docs/security.md): global addresses
 * only, judged at connect time (src/shared/guarded-lookup.ts), redirects not followed.
 */
export function guardedFetch(options: OidcOutbound): client.CustomFetch {
  const dispatcher = new Agent({
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: guardedConnect({ ...options, connectTimeoutMs: options.timeoutMs }, (host, address, reason) => new SsoAddressRefused(host, address, reason)),
  });
  return (async (url: string, init: client.CustomFetchOptions) => {
    // openid-client passes a 30-s signal of its own: ours holds too, body included.
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const answer = await undiciFetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body as never,
      redirect: 'manual',
      signal: init.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
      dispatcher,
    });
    return capped(answer as unknown as Response, MAX_PROVIDER_ANSWER_BYTES);
  }) as unknown as client.CustomFetch;
}

/**
 * client_secret_basic (OpenID Connect's default) unless the provider says it takes only
 * client_secret_post: chosen per request from its discovery document.
 */
function clientSecretAuth(secret: string): client.ClientAuth {
  const basic = client.ClientSecretBasic(secret);
  const post = client.ClientSecretPost(secret);
  return (as, metadata, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported;
    const use = !methods || methods.includes('client_secret_basic') ? basic : post;
    return use(as, metadata, body, headers);
  };
}

/** The provider's configuration for one client: discovery (`<issuer>/.well-known/openid-configuration`), through `fetch`. */
export function discover(issuer: string, clientId: string, clientSecret: string, fetch: client.CustomFetch, allowHttp: boolean): Promise<client.Configuration> {
  return client.discovery(new URL(issuer), clientId, undefined, clientSecretAuth(clientSecret), {
    [client.customFetch]: fetch,
    ...(allowHttp ? { execute: [client.allowInsecureRequests] } : {}),
  });
}

export { client as oidc };
export type CustomFetch = client.CustomFetch;
