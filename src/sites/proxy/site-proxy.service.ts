import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';

import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Agent, Dispatcher } from 'undici';

import { lingerOnClose } from '../../common/lingering-close';
import { messagePage, PAGE_HEADERS } from '../../common/site-pages';
import { AppConfig } from '../../config/app-config';
import { gateCookieName } from '../../gates/gate-cookie';
import { HTML, PRIVATE_CACHE } from '../file-sender.service';
import type { SiteState } from '../site-cache.service';
import { proxyDispatcher } from './outbound';
import { answerHeaders, type CookieScope, requestHeaders } from './proxy-headers';
import { ProxySecrets } from './proxy-secrets';
import { signProxyRequest } from './signature';

/** A proxy rule's answer for one request: where to forward it, and the env var that signs it. */
export interface ProxyTarget {
  /** Absolute http(s) URL, captures and the passed-on query already rendered. */
  url: string;
  /** `Sign=NAME` of the rule: the project environment variable whose value signs the request, or null. */
  signed: string | null;
}

/** Marks requests this service sends, so a rule that points back at a site of this service is not followed a second time (Netlify allows one hop too). */
const VIA = '1.1 statichost-proxy';
/** How long "the project has no such variable" is believed before asking again (a value, once found, lasts as long as the site state). */
const MISSING_SECRET_MS = 10_000;
const RETRY_AFTER_SECONDS = '1';

const PAGES = {
  badGateway: () => messagePage('Bad gateway', 'The server this address is forwarded to did not answer. Try again in a moment.'),
  refused: () => messagePage('Bad gateway', 'This address is forwarded to a server that this service may not reach (a private or loopback address).'),
  notFound: () => messagePage('Bad gateway', 'The server this address is forwarded to could not be found.'),
  timeout: () => messagePage('Gateway timeout', 'The server this address is forwarded to took too long to answer. Try again in a moment.'),
  missingSecret: () =>
    messagePage('Bad gateway', 'The signing secret of this forwarding rule is missing from the project’s settings, so the request was not sent.'),
  tooLarge: (limit: number) => messagePage('Request too large', `The request body is larger than ${limit} bytes, the most this site forwards.`),
  busy: () => messagePage('Busy', 'This site is handling too many forwarded requests. Try again in a moment.'),
  loop: () => messagePage('Loop detected', 'This address forwards to a site of this service that forwards again; only one hop is followed.'),
};

/** Headers that decide who may store an answer and for how long (src/shared/site-rules/headers.ts's list). */
const CACHING = ['cache-control', 'cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control', 'expires', 'pragma'];

/** The request body passed PROXY_MAX_BODY_BYTES while it was being forwarded. */
class BodyTooLarge extends Error {}
/** The origin had not started answering within PROXY_TIMEOUT_MS. */
class OriginTimeout extends Error {}

/**
 * Forwards a site request that a `_redirects` proxy rule (`/api/* https://api.example.com/:splat 200`)
 * matched to its origin, streaming both ways with back-pressure (undici), never
 * following the origin's redirects (docs/site-rules.md, "Proxy rules"; docs/security.md,
 * "Proxy rules"). Every failure of the origin is a page of the site's own style:
 * 502 (down, refused by the address policy, missing signing secret), 504 (timeouts),
 * 413 (body too large), 503 (the site's concurrency cap), 508 (a second hop).
 */
@Injectable()
export class SiteProxy implements OnModuleDestroy {
  private readonly logger = new Logger(SiteProxy.name);
  private readonly dispatcher: Agent;
  private readonly gateCookie: string;
  /** Proxied requests under way, per project. */
  private readonly inFlight = new Map<string, number>();
  /** Signing secrets opened, per site state (a deploy or gate change brings a new state, and the value is read again). */
  private readonly opened = new WeakMap<SiteState, Map<string, { value: string | null; at: number }>>();
  private readonly apiHosts: string[];

  constructor(
    private readonly config: AppConfig,
    private readonly secrets: ProxySecrets,
  ) {
    this.dispatcher = proxyDispatcher({
      allowPrivateAddresses: config.PROXY_ALLOW_PRIVATE_ADDRESSES,
      connectTimeoutMs: config.PROXY_CONNECT_TIMEOUT_MS,
      idleTimeoutMs: config.PROXY_TIMEOUT_MS,
      dnsServers: config.dnsServers,
      dnsTimeoutMs: config.DNS_TIMEOUT_MS,
    });
    this.gateCookie = gateCookieName(config.PUBLIC_SCHEME === 'https');
    this.apiHosts = config.apiHosts.map((h) => h.replace(/:\d+$/, '').toLowerCase());
  }

  async onModuleDestroy(): Promise<void> {
    await this.dispatcher.destroy().catch(() => undefined);
  }

  /**
   * Answers `res` (never throws for an origin's failure: those are 502/504 pages).
   * `cacheControl`, when given, is the router's for an answer no shared cache may keep
   * (a Country= rule chose it): it replaces every caching header of the origin's.
   */
  forward(site: SiteState, target: ProxyTarget, req: IncomingMessage, res: ServerResponse, cacheControl?: string): void {
    const head = req.method === 'HEAD';
    const gated = site.gateType !== 'none';
    const limit = this.config.PROXY_MAX_BODY_BYTES;
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) return this.page(site, res, 413, PAGES.tooLarge(limit), head, gated, true);
    if (req.headers.via?.includes(VIA)) return this.page(site, res, 508, PAGES.loop(), head, gated, false);
    const running = this.inFlight.get(site.projectId) ?? 0;
    if (running >= this.config.PROXY_MAX_CONCURRENT_PER_SITE) {
      res.setHeader('Retry-After', RETRY_AFTER_SECONDS);
      return this.page(site, res, 503, PAGES.busy(), head, gated, false);
    }
    this.inFlight.set(site.projectId, running + 1);
    res.once('close', () => {
      const left = (this.inFlight.get(site.projectId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(site.projectId);
      else this.inFlight.set(site.projectId, left);
    });
    this.send(site, target, req, res, gated, cacheControl).catch((err: unknown) => this.failed(err, site, target, req, res, gated));
  }

  private async send(site: SiteState, target: ProxyTarget, req: IncomingMessage, res: ServerResponse, gated: boolean, cacheControl?: string): Promise<void> {
    const url = new URL(target.url);
    const headers = requestHeaders(req.rawHeaders, this.gateCookie, {
      peer: req.socket?.remoteAddress ?? 'unknown',
      trusted: req.socket?.remoteAddress !== undefined && this.config.trustProxy(req.socket.remoteAddress, 0),
      host: req.headers.host ?? '',
      proto: (req.socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http',
    });
    headers.push('Via', VIA);
    if (target.signed !== null) {
      const secret = await this.secret(site, target.signed);
      if (!secret) {
        this.logger.warn(`site ${site.slug}: a proxy rule signs with ${target.signed}, which the project has no value for; answered 502`);
        return this.page(site, res, 502, PAGES.missingSecret(), req.method === 'HEAD', gated, false);
      }
      const signature = await signProxyRequest(secret, {
        siteId: site.projectId,
        siteUrl: this.config.siteUrl(site.slug),
        context: site.preview ? 'deploy-preview' : 'production',
      });
      headers.push('X-Nf-Sign', signature);
    }

    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new OriginTimeout()), this.config.PROXY_TIMEOUT_MS);
    // The visitor leaving stops the origin's request too.
    const gone = () => timeout.abort();
    res.once('close', gone);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method as 'GET',
        headers,
        body: hasBody ? Readable.from(bounded(req, this.config.PROXY_MAX_BODY_BYTES), { objectMode: false }) : undefined,
        signal: timeout.signal,
      });
    } finally {
      clearTimeout(timer);
    }
    if (res.destroyed) {
      answer.body.destroy();
      return;
    }
    res.off('close', gone);
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const scope: CookieScope = { host, sitesDomain: this.config.SITES_DOMAIN, apiHosts: this.apiHosts, gateCookie: this.gateCookie };
    const out = answerHeaders(answer.headers, scope, (why) => this.logger.warn(`site ${site.slug}: the origin's Set-Cookie ${why}; dropped`));
    const head = this.siteAnswerHeaders(site, out, gated, cacheControl);
    if (res.getHeaderNames().length === 0) res.writeHead(answer.statusCode, head);
    else {
      // The router set a header before (X-Robots-Tag on a preview host): writeHead would merge the
      // list in one setHeader per entry, keeping one Set-Cookie of several. Grouped by name instead.
      const grouped = new Map<string, string[]>();
      for (let i = 0; i < head.length; i += 2) {
        const name = head[i].toLowerCase();
        const values = grouped.get(name);
        if (values) values.push(head[i + 1]);
        else grouped.set(name, [head[i + 1]]);
      }
      for (const [name, values] of grouped) {
        // What the router set stays (a preview's noindex is not the origin's to lift).
        const before = res.getHeader(name);
        if (before !== undefined) values.unshift(...(Array.isArray(before) ? before : [String(before)]));
        res.setHeader(name, values.length === 1 ? values[0] : values);
      }
      res.writeHead(answer.statusCode);
    }
    pipeline(answer.body, res, (err) => {
      // The origin's answer broke off (or paused past PROXY_TIMEOUT_MS), or the visitor left: nothing more can be said.
      if (err && !res.destroyed) res.destroy();
    });
  }

  /**
   * The origin's headers with the site's own: CDN tags and HSTS, nosniff, and a gated
   * site's no-store (or the router's private Cache-Control of a country's answer). Then
   * none of the origin's caching headers stays: a CDN obeys CDN-Cache-Control or
   * Surrogate-Control over Cache-Control, and would keep one visitor's answer for all
   * (the same set gatedHeaderChanges drops from `_headers`).
   */
  private siteAnswerHeaders(site: SiteState, origin: string[], gated: boolean, cacheControl?: string): string[] {
    const tags = site.headers ?? [];
    const own = gated ? PRIVATE_CACHE : cacheControl;
    const replaced = new Set(['x-content-type-options', ...(own ? CACHING : [])]);
    for (let i = 0; i < tags.length; i += 2) replaced.add(tags[i].toLowerCase());
    const out: string[] = [];
    let vary: string | undefined;
    for (let i = 0; i < origin.length; i += 2) {
      const lower = origin[i].toLowerCase();
      if (replaced.has(lower)) continue;
      if (gated && lower === 'vary') {
        vary = vary ? `${vary}, ${origin[i + 1]}` : origin[i + 1];
        continue;
      }
      out.push(origin[i], origin[i + 1]);
    }
    out.push('X-Content-Type-Options', 'nosniff', ...tags);
    if (own) out.push('Cache-Control', own);
    if (gated) out.push('Vary', vary ? `${vary}, Cookie` : 'Cookie');
    return out;
  }

  private async secret(site: SiteState, name: string): Promise<string | null> {
    let cache = this.opened.get(site);
    if (!cache) this.opened.set(site, (cache = new Map()));
    const known = cache.get(name);
    if (known && (known.value !== null || Date.now() - known.at < MISSING_SECRET_MS)) return known.value;
    const value = site.live
      ? (await this.secrets.value(name, { projectId: site.projectId, deploymentId: site.live.id, preview: site.preview === true })) || null
      : null;
    cache.set(name, { value, at: Date.now() });
    return value;
  }

  private failed(err: unknown, site: SiteState, target: ProxyTarget, req: IncomingMessage, res: ServerResponse, gated: boolean): void {
    const head = req.method === 'HEAD';
    const reason = (err as { reason?: unknown })?.reason ?? err;
    const code = (err as NodeJS.ErrnoException)?.code ?? (((err as Error)?.cause as NodeJS.ErrnoException | undefined)?.code || undefined);
    if (res.headersSent || res.destroyed) {
      if (!res.destroyed) res.destroy();
      return;
    }
    const where = `site ${site.slug}: proxy to ${originOf(target.url)}`;
    if (reason instanceof BodyTooLarge || err instanceof BodyTooLarge) {
      return this.page(site, res, 413, PAGES.tooLarge(this.config.PROXY_MAX_BODY_BYTES), head, gated, true);
    }
    if (reason instanceof OriginTimeout || err instanceof OriginTimeout || code === 'UND_ERR_CONNECT_TIMEOUT') {
      this.logger.warn(`${where}: timed out (${code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connecting' : 'waiting for the answer'})`);
      return this.page(site, res, 504, PAGES.timeout(), head, gated, false);
    }
    if (code === 'PROXY_ADDRESS_REFUSED') {
      this.logger.warn(`${where}: ${(err as Error).message}`);
      return this.page(site, res, 502, PAGES.refused(), head, gated, false);
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      this.logger.warn(`${where}: the host was not found (${code})`);
      return this.page(site, res, 502, PAGES.notFound(), head, gated, false);
    }
    if (err instanceof TypeError && /Invalid URL/i.test(err.message)) this.logger.error(`${where}: the rule's URL does not parse`);
    else if (!code) this.logger.error(`${where}: ${(err as Error)?.message ?? String(err)}`, (err as Error)?.stack);
    else this.logger.warn(`${where}: ${code}`);
    this.page(site, res, 502, PAGES.badGateway(), head, gated, false);
  }

  private page(site: SiteState, res: ServerResponse, status: number, html: string, head: boolean, gated: boolean, close: boolean): void {
    const body = Buffer.from(html);
    const headers = [
      'Content-Type',
      HTML,
      'Content-Length',
      String(body.length),
      'Cache-Control',
      gated ? PRIVATE_CACHE : 'no-store',
      'X-Content-Type-Options',
      'nosniff',
      ...Object.entries(PAGE_HEADERS).flat(),
      ...(site.headers ?? []),
    ];
    if (gated) headers.push('Vary', 'Cookie');
    // A body still arriving is not read to its end: the connection closes after the answer,
    // lingering (src/common/lingering-close.ts) so a client still sending gets the 413, not a reset.
    if (close) {
      headers.push('Connection', 'close');
      if (res.socket) lingerOnClose(res.socket);
    }
    res.writeHead(status, headers);
    res.end(head ? undefined : body);
  }
}

/** The request body, failing with BodyTooLarge past `limit` bytes. The request is left open, so the 413 can still be written. */
async function* bounded(req: IncomingMessage, limit: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    seen += (chunk as Buffer).length;
    if (seen > limit) throw new BodyTooLarge();
    yield chunk as Buffer;
  }
}

/** scheme://host of a URL, for logs (never the path or query, which may hold what visitors typed). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}
