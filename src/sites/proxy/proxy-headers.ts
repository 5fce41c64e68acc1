import { parse as parseDomain } from 'tldts';

/**
 * What a proxied request carries to its origin, and what of the origin's answer reaches
 * the visitor (docs/site-rules.md, "Proxy rules"; docs/security.md, "Proxy rules").
 * Pure: the service gives them the request's raw headers and its own settings.
 */

/** Hop-by-hop headers (RFC 9110 §7.6.1), never forwarded in either direction; names listed in Connection are too. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * Request headers never sent to the origin: hop-by-hop ones; Host (the origin's own is
 * sent); Authorization (a visitor's credentials for the site are not the origin's to
 * read: Netlify has no per-rule way to keep it, so neither do we); Expect (the proxy
 * has already answered 100-continue itself); what the proxy sets itself.
 */
const REQUEST_DROPPED = new Set([
  'host',
  'authorization',
  'expect',
  'forwarded',
  'x-real-ip',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-nf-sign',
]);

/**
 * Answer headers dropped from the origin: instructions to a proxy in front of this
 * server (nginx's X-Accel-Redirect would serve a file of the machine), what would act
 * on other sites under the same domain (Clear-Site-Data) or move connections
 * (Alt-Svc), and the CDN purge tags, which the server sets to the site's own
 * (the same list `_headers` refuses, src/shared/site-rules/headers.ts).
 */
const ANSWER_DROPPED = new Set(['x-sendfile', 'x-sendfile-type', 'x-lighttpd-send-file', 'clear-site-data', 'alt-svc', 'cache-tag', 'surrogate-key']);
const ANSWER_DROPPED_PREFIXES = ['proxy-', 'x-accel-', 'x-litespeed-', 'x-envoy-'];

/** Names listed in a Connection header (lower-case): hop-by-hop for this message. */
function connectionTokens(values: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const value of values) for (const token of value.split(',')) if (token.trim()) names.add(token.trim().toLowerCase());
  return names;
}

export interface ForwardedFor {
  /** The address of the peer that sent the request (the visitor, or a proxy of ours). */
  peer: string;
  /** Whether that peer is a trusted proxy (TRUST_PROXY): only then is what it says of earlier hops kept. */
  trusted: boolean;
  /** The request's Host, port included: the site's own address. */
  host: string;
  /** http or https, as the visitor reached the service. */
  proto: 'http' | 'https';
}

/**
 * The headers sent to the origin, as a flat [name, value, …] list (undici's form), from
 * the request's raw headers: hop-by-hop and the dropped ones left out, the gate's access
 * cookie taken out of Cookie (the site's own cookies stay), X-Forwarded-For appended to
 * what a trusted proxy said (a visitor's own claim is not passed on as if it were a hop),
 * X-Forwarded-Host and -Proto set.
 */
export function requestHeaders(raw: readonly string[], gateCookie: string, forwarded: ForwardedFor): string[] {
  const connection: string[] = [];
  const incomingFor: string[] = [];
  const incomingProto: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i].toLowerCase();
    if (lower === 'connection') connection.push(raw[i + 1]);
    else if (lower === 'x-forwarded-for') incomingFor.push(raw[i + 1]);
    else if (lower === 'x-forwarded-proto') incomingProto.push(raw[i + 1]);
  }
  const listed = connectionTokens(connection);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || REQUEST_DROPPED.has(lower) || listed.has(lower) || lower.startsWith('proxy-')) continue;
    if (lower === 'cookie') {
      const kept = withoutCookie(raw[i + 1], gateCookie);
      if (kept) out.push(name, kept);
      continue;
    }
    out.push(name, raw[i + 1]);
  }
  const chain = forwarded.trusted ? incomingFor.map((v) => v.trim()).filter(Boolean) : [];
  out.push('X-Forwarded-For', [...chain, forwarded.peer].join(', '));
  out.push('X-Forwarded-Host', forwarded.host);
  // A trusted proxy in front (Caddy) knows how the visitor came; otherwise the connection says.
  const told = forwarded.trusted ? incomingProto[0]?.split(',')[0].trim().toLowerCase() : undefined;
  out.push('X-Forwarded-Proto', told === 'http' || told === 'https' ? told : forwarded.proto);
  return out;
}

/** A Cookie header without the pairs named `name`; '' when nothing else is left. */
export function withoutCookie(header: string, name: string): string {
  if (!header.includes(name)) return header;
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && pair.split('=', 1)[0].trim() !== name)
    .join('; ');
}

export interface CookieScope {
  /** The request's host, lower-case, without port. */
  host: string;
  /** SITES_DOMAIN: no cookie of a proxied answer may be for it or a parent of it (every site, and the API beside it, would get it). */
  sitesDomain: string;
  /** The API's hosts (without port): no cookie for a parent of one (the cookie-fixation of docs/security.md). */
  apiHosts: readonly string[];
  /** The gate's access cookie: an origin may not set, replace or delete it. */
  gateCookie: string;
}

/** Whether `domain` is `host` or one of its parents. */
function coversHost(domain: string, host: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * Why the origin's `Set-Cookie` is dropped, or null when it reaches the visitor.
 * Kept: a host-only cookie (no Domain), or a Domain that is the request's host, or a
 * parent of it that is no public suffix (Public Suffix List, private section
 * included), not SITES_DOMAIN or one of its parents, and not a parent of an API host.
 * So a site on `<slug>.<SITES_DOMAIN>` keeps host-only cookies only, and a custom
 * domain `www.example.com` may share a cookie with `example.com`.
 */
export function setCookieRefusal(value: string, scope: CookieScope): string | null {
  const [pair, ...attributes] = value.split(';');
  const name = pair.split('=', 1)[0].trim();
  if (name === scope.gateCookie) return `sets the gate's access cookie ${name}`;
  let domain: string | undefined;
  for (const attribute of attributes) {
    const eq = attribute.indexOf('=');
    // The last Domain attribute wins (RFC 6265 §5.3).
    if (eq !== -1 && attribute.slice(0, eq).trim().toLowerCase() === 'domain') domain = attribute.slice(eq + 1).trim();
  }
  if (domain === undefined || domain === '') return null;
  // The router serves a fully qualified Host ("shop.sites.example."), and a browser on it
  // takes `Domain=sites.example.`: both are judged without the root's ".", else that pair
  // would pass every check below as a name unlike SITES_DOMAIN and the API's hosts.
  const host = scope.host.replace(/\.$/, '');
  const wanted = domain.replace(/^\./, '').replace(/\.$/, '').toLowerCase();
  if (wanted === host) return null;
  if (!host.endsWith(`.${wanted}`)) return `is for ${wanted}, which is not this site's host ${host}`;
  const parsed = parseDomain(wanted, { allowPrivateDomains: true });
  if (parsed.publicSuffix === wanted || parsed.domain === null) return `is for ${wanted}, a public suffix`;
  if (coversHost(wanted, scope.sitesDomain)) return `is for ${wanted}, which every site under ${scope.sitesDomain} shares`;
  if (scope.apiHosts.some((api) => coversHost(wanted, api))) return `is for ${wanted}, a parent of the API's host`;
  return null;
}

/**
 * The origin's answer headers as a flat list for writeHead: hop-by-hop and the dropped
 * ones left out, each Set-Cookie judged by setCookieRefusal. `refused` receives the
 * reason of each cookie dropped (for the log).
 */
export function answerHeaders(headers: Record<string, string | string[] | undefined>, scope: CookieScope, refused: (reason: string) => void): string[] {
  const connection = headers.connection;
  const listed = connectionTokens(connection === undefined ? [] : Array.isArray(connection) ? connection : [connection]);
  const out: string[] = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || ANSWER_DROPPED.has(lower) || ANSWER_DROPPED_PREFIXES.some((p) => lower.startsWith(p))) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      if (lower === 'set-cookie') {
        const why = setCookieRefusal(one, scope);
        if (why) {
          refused(why);
          continue;
        }
      }
      out.push(name, one);
    }
  }
  return out;
}
