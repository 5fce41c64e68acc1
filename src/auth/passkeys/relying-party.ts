import { hostOnly } from '../../config/api-host';

/** Who the passkeys are for: the WebAuthn relying-party id and the origins whose answers count. */
export interface RelyingParty {
  id: string;
  origins: string[];
}

/**
 * The relying-party id is the first API host without its port (a passkey is bound to it:
 * changing it orphans every passkey), else the host of the public API URL. An answer is
 * accepted from the origin of any API host, with the public URL's scheme (https in
 * production, http for a local run), and from the public API URL itself.
 * `publicPort`: the port public URLs carry when a host names none.
 */
export function relyingParty(config: { apiHosts: readonly string[]; apiBaseUrl: string; publicPort?: number }): RelyingParty {
  const base = new URL(config.apiBaseUrl);
  const id = config.apiHosts.length > 0 ? hostOnly(config.apiHosts[0]) : base.hostname;
  const hosts = config.apiHosts.map((host) => (/:\d+$/.test(host) || config.publicPort === undefined ? host : `${host}:${config.publicPort}`));
  const origins = [...new Set([...hosts.map((host) => new URL(`${base.protocol}//${host}`).origin), base.origin])];
  return { id, origins };
}
