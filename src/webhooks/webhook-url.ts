import { isIP } from 'node:net';

import { addressRefusal } from '../shared/outbound-address';

/** Longest URL an endpoint may have (what browsers and most servers accept). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Why a URL may not be an endpoint's, judged on its text alone (the addresses its name
 * resolves to are judged when created and again at every connection): `https` only, or
 * `http` too when the operator allows private addresses; no credentials in it; a literal
 * address must be one the policy allows. Null when it may.
 */
export function webhookUrlRefusal(raw: string, allowPrivateAddresses: boolean): string | null {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivateAddresses && url.protocol === 'http:'))
    return allowPrivateAddresses ? 'url must use https or http' : 'url must use https (WEBHOOK_ALLOW_PRIVATE_ADDRESSES allows http)';
  if (url.username || url.password) return 'url must not carry a user name or password';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivateAddresses && isIP(host) !== 0) {
    const reason = addressRefusal(host);
    if (reason) return `url's address ${host} is ${reason}: webhooks may not reach it (WEBHOOK_ALLOW_PRIVATE_ADDRESSES)`;
  }
  return null;
}

/** A Slack incoming-webhook URL, which gets Slack's message shape unless the endpoint says otherwise. */
export function isSlackUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.hostname === 'hooks.slack.com' && url.pathname.startsWith('/services/');
  } catch {
    return false;
  }
}
