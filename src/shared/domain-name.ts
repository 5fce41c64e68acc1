import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

import { hostOnly } from '../config/api-host';

/** Names a custom domain may not take: the service's own. */
export interface DomainRules {
  /** Sites are served at `<slug>.<sitesDomain>`: that name and everything under it belong to the service. */
  sitesDomain: string;
  /** Hosts of the API (config API_HOSTS, ports allowed): those names and everything under them are refused too. */
  apiHosts: readonly string[];
}

declare const canonical: unique symbol;
/**
 * A custom domain in its canonical form (see normaliseDomain), the only maker. A
 * request's name is normalised once, in the controller, and passed on as this value.
 */
export type DomainName = string & { readonly [canonical]: true };

/** Why a custom domain was refused; the message is ready for a 400 body. */
export class InvalidDomainError extends Error {}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_NAME = 253;

/** `a.b` is under `b` (and `b` under itself): the test for "belongs to the service". */
function isUnder(name: string, parent: string): boolean {
  return name === parent || name.endsWith(`.${parent}`);
}

/**
 * The canonical form of a custom domain, or an InvalidDomainError saying what is
 * wrong. Canonical: lowercase ASCII, internationalised labels as punycode (UTS #46,
 * the WHATWG URL host rules that browsers apply, so the name stored is the name a
 * browser sends in `Host`), no trailing dot. Only a host name is accepted: a scheme,
 * port, path or IP address is refused rather than stripped, so nobody attaches a
 * different name than they think.
 */
export function normaliseDomain(raw: string, rules: DomainRules): DomainName {
  const given = raw.trim();
  const say = (why: string) => new InvalidDomainError(`custom_domain: "${raw}" ${why}`);
  if (given === '') throw new InvalidDomainError('custom_domain: must not be empty (send null to detach the domain)');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(given)) throw say('has a scheme; give the host name alone, e.g. www.example.com');
  if (/[/?#\\]/.test(given)) throw say('has a path; give the host name alone, e.g. www.example.com');
  if (given.includes('@')) throw say('is not a host name (it contains @)');
  if (isIP(given.replace(/^\[(.*)\]$/, '$1')) !== 0) throw say('is an IP address; a custom domain must be a host name');
  if (given.includes(':')) throw say('has a port; give the host name alone (sites answer on the standard ports)');
  if (/[\s\u0000-\u001f\u007f]/.test(given)) throw say('contains spaces or control characters');
  if (given.includes('*')) throw say('is a wildcard; attach each host name on its own');

  // domainToASCII lowercases, maps full-width forms and ideographic dots, applies
  // IDNA (UTS #46, non-transitional) and answers '' for anything it cannot convert.
  let host = domainToASCII(given);
  if (host === '') throw say('is not a valid host name');
  if (host.endsWith('.')) host = host.slice(0, -1);
  // The URL host parser reads `0x7f.1` or `2130706433` as IPv4: still an address.
  if (isIP(host) !== 0) throw say('is an IP address; a custom domain must be a host name');
  const labels = host.split('.');
  if (labels.length < 2) throw say('needs at least two labels, e.g. www.example.com');
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined) {
    throw say(bad === '' ? 'has an empty label' : `has an invalid label "${bad}" (letters, digits and inner hyphens, at most 63 characters)`);
  }
  if (/^\d+$/.test(labels[labels.length - 1])) throw say('ends in a numeric label; it is not a host name');
  if (host.length > MAX_NAME) throw say(`is longer than ${MAX_NAME} characters once encoded (${host.length})`);
  if (isUnder(host, 'localhost')) throw say('is a localhost name; it can never point at this service');
  if (isUnder(host, rules.sitesDomain)) throw say(`is under the sites domain ${rules.sitesDomain}; its sites are reached by slug already`);
  const api = rules.apiHosts.map(hostOnly).find((h) => isUnder(host, h));
  if (api !== undefined) throw say(`is the API's host name ${api} or under it`);
  return host as DomainName;
}

/**
 * Whether a request's (already normalised) Host could be an attached custom domain
 * at all: names with a dot that are not addresses. Lets the router skip the
 * lookup for `localhost`, docker service names and IPs.
 */
export function couldBeCustomDomain(host: string): boolean {
  return host.includes('.') && !host.includes(':') && !host.startsWith('[') && isIP(host) === 0 && !isUnder(host, 'localhost');
}
