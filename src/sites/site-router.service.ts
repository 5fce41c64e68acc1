import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';

import { AnalyticsRecorder } from '../analytics/analytics-recorder.service';
import { clientAddress } from '../common/client-address';
import { isDatabaseUnavailable } from '../common/db-errors';
import { DATABASE_RETRY_AFTER_SECONDS } from '../common/error-body';
import { ApiError } from '../common/errors';
import { PAGE_HEADERS, PAGES } from '../common/site-pages';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { FormIntake } from '../forms/form-intake.service';
import { Gates } from '../gates/gates.service';
import { MetricsService } from '../metrics/metrics.service';
import { SitePauses } from '../quotas/site-pauses.service';
import { couldBeCustomDomain } from '../shared/domain-name';
import { PREVIEW_SEPARATOR, type PreviewTarget } from '../shared/preview-label';
import { gatedHeaderChanges, headersFor, NO_HEADER_CHANGES, previewHeaderChanges } from '../shared/site-rules/headers';
import type { RequestContext, RequestNeeds } from '../shared/site-rules/request-context';
import { isHashedAssetPath, parseRequestPath } from '../shared/site-rules/request-path';
import { resolveRequest } from '../shared/site-rules/resolve';
import { cacheTagHeaderList, deploymentCacheTag, projectCacheTag } from '../site-webhook/cache-tags';
import { answerBytes } from './answer-bytes';
import { type AnswerTrace, type ConditionalAnswer, ConditionalAnswers, conditionalHeaderChanges, conditionalKey } from './conditional-answers';
import { FileSender, HTML, PRIVATE_CACHE, sentHtmlFile } from './file-sender.service';
import { GeoIp } from './geoip/geoip.service';
import { HostRoute, HostRules, routeHost } from './host';
import { SiteProxy } from './proxy/site-proxy.service';
import { requestContext } from './request-context';
import { LiveDeployment, SiteAnswer, SiteCache, SiteFile, SiteState } from './site-cache.service';

const PUBLIC_CACHE = 'public, max-age=0, must-revalidate';
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** An answer that depends on the visitor's country: the browser may keep it, no shared cache. */
const COUNTRY_CACHE = 'private, max-age=0, must-revalidate';

type Resolved = SiteAnswer | ConditionalAnswer<SiteAnswer>;

/**
 * Serves deployed sites, chosen by the Host header, as a plain node:http handler in
 * front of Express: a site request never pays for Express's middleware, and never
 * reaches an API route. This part dispatches (which site, which deployment, which gate,
 * which answer of the site's rules); FileSender sends the file chosen.
 */
/** The longest Host the route memo keeps: a DNS name (253) with a port. */
const ROUTE_KEY_MAX = 253 + ':65535'.length;

@Injectable()
export class SiteRouter {
  private readonly logger = new Logger(SiteRouter.name);
  private readonly hostRules: HostRules;
  private readonly routes = new Map<string, HostRoute>();
  /**
   * Hosts the route memo holds before it starts over: one per 16 KB of SITE_CACHE_MB (about
   * 150 bytes each, so 1 % of the budget; 131,072 at the default 2 GB), at least 10,000. A
   * fixed 10,000 emptied it every 10,000 new hosts at 100,000 sites, so most requests parsed
   * their Host again (issue 35).
   */
  private readonly routesMax: number;
  private readonly hsts?: string;
  private readonly clientIpOf: (req: IncomingMessage) => string;
  private readonly countryOf: (req: IncomingMessage) => string | null;
  /** Answers of paths that conditional rules match, per site state (conditional-answers.ts). */
  private readonly conditional = new WeakMap<SiteState, ConditionalAnswers<SiteAnswer>>();

  constructor(
    private readonly config: AppConfig,
    private readonly sites: SiteCache,
    private readonly sender: FileSender,
    private readonly gates: Gates,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly analytics: AnalyticsRecorder,
    private readonly proxy: SiteProxy,
    private readonly geoip: GeoIp,
    private readonly forms: FormIntake,
    private readonly pauses: SitePauses,
  ) {
    this.hostRules = { sitesDomain: config.SITES_DOMAIN, apiHosts: config.apiHosts };
    this.routesMax = Math.max(10_000, Math.floor(config.siteCacheBytes / 16_384));
    this.hsts = config.hstsHeader;
    this.clientIpOf = (req) => this.clientIp(req);
    this.countryOf = (req) => this.geoip.country(this.clientIp(req));
  }

  /**
   * Wraps the API's request listener: site hosts are answered here, everything else
   * goes on to `api`.
   */
  dispatcher(api: (req: IncomingMessage, res: ServerResponse) => void) {
    return (req: IncomingMessage, res: ServerResponse): void => {
      const route = this.route(req.headers.host);
      if (route.kind === 'api') return api(req, res);
      if (route.kind === 'preview') return this.dispatchPreview(route.label, route.target, req, res);
      if (route.kind === 'site' && route.slug.includes(PREVIEW_SEPARATOR)) return this.dispatchAlias(route.slug, req, res);
      // Any other host is served when it is a verified custom domain (src/domains).
      const found = route.kind === 'site' ? this.sites.bySlug(route.slug) : this.byCustomDomain(route.host);
      if (route.kind === 'custom' && this.hostRules.apiHosts.length === 0) {
        // Dev default (API_HOSTS unset): every other host is the API's, pending and failed
        // domains included, so attaching a name nobody verified can never take the API's host away.
        if (found === null) return api(req, res);
        if (found instanceof Promise) {
          found.then((site) => (site ? this.serve(site, req, res) : api(req, res))).catch((err) => this.fail(err, req, res));
          return;
        }
      }
      // The hot path stays synchronous: a cached site and a cached file never wait on a promise.
      if (found instanceof Promise) {
        found.then((site) => this.serve(site, req, res)).catch((err) => this.fail(err, req, res));
        return;
      }
      try {
        this.serve(found, req, res);
      } catch (err) {
        this.fail(err, req, res);
      }
    };
  }

  /** A deployment's own address (`<slug>--<version>.<SITES_DOMAIN>`), see SiteCache.byPreview. */
  private dispatchPreview(label: string, target: PreviewTarget, req: IncomingMessage, res: ServerResponse): void {
    this.answerPreview(this.sites.byPreview(label, target), req, res);
  }

  /**
   * A label with "--" that is no preview label: a project's slug taken before slugs lost
   * "--" (its ordinary site), else a branch's or pull request's alias (SiteCache.bySlug).
   */
  private dispatchAlias(label: string, req: IncomingMessage, res: ServerResponse): void {
    this.answerPreview(this.sites.bySlug(label), req, res);
  }

  private answerPreview(found: SiteState | null | Promise<SiteState | null>, req: IncomingMessage, res: ServerResponse): void {
    const answer = (site: SiteState | null) => {
      // Every answer of a preview, gate and error pages included, keeps crawlers out
      // (set before serve so each writeHead merges it in). A project whose slug is the
      // whole label (taken before slugs lost "--") is its ordinary site.
      if (!site || site.preview) res.setHeader('X-Robots-Tag', 'noindex');
      this.serve(site, req, res);
    };
    if (found instanceof Promise) {
      found.then(answer).catch((err) => this.fail(err, req, res));
      return;
    }
    try {
      answer(found);
    } catch (err) {
      this.fail(err, req, res);
    }
  }

  /** Names that can never be a custom domain (IPs, localhost, docker service names) skip the lookup. */
  private byCustomDomain(host: string): SiteState | null | Promise<SiteState | null> {
    return couldBeCustomDomain(host) ? this.sites.byDomain(host) : null;
  }

  /** Host → route, memoised: a handful of hosts arrive over and over. */
  private route(host: string | undefined): HostRoute {
    const key = host ?? '';
    let route = this.routes.get(key);
    if (!route) {
      if (this.routes.size >= this.routesMax) this.routes.clear();
      route = routeHost(host, this.hostRules);
      // No name with a port is longer (253 + ":65535"): a longer Host is routed but not kept,
      // or a client sending new 16 KB ones would fill the memo with them.
      if (key.length <= ROUTE_KEY_MAX) this.routes.set(key, route);
    }
    return route;
  }

  private fail(err: unknown, req: IncomingMessage, res: ServerResponse): void {
    if (isDatabaseUnavailable(err) && !res.headersSent) {
      // A site never seen before this outage: nothing to answer from until the database is back.
      this.logger.warn(`site request while the database is unavailable: ${req.method} ${req.headers.host}${(req.url ?? '').split('?')[0]}`);
      res.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      return this.page(
        res,
        503,
        'no-store',
        '<!doctype html><title>Unavailable</title><h1>This site is briefly unavailable</h1><p>Try again in a few seconds.</p>',
        req.method === 'HEAD',
      );
    }
    if (err instanceof ApiError && err.getStatus() === 503 && !res.headersSent) {
      // Overload (e.g. the password gate's hashing queue is full), not a fault: a retry soon will do.
      const retryAfter = (err as { headers?: Record<string, string> }).headers?.['Retry-After'];
      if (retryAfter) res.setHeader('Retry-After', retryAfter);
      return this.page(res, 503, 'no-store', PAGES.busy(), req.method === 'HEAD');
    }
    this.logger.error(
      `site request failed: ${req.method} ${req.headers.host}${(req.url ?? '').split('?')[0]}: ${(err as Error).message}`,
      (err as Error).stack,
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.page(res, 500, 'no-store', '<!doctype html><title>Server error</title><h1>Something went wrong</h1>', req.method === 'HEAD');
  }

  private serve(site: SiteState | null, req: IncomingMessage, res: ServerResponse): void {
    // A preview address is the owner's look before publishing, not the site's traffic.
    const counted = site !== null && site.preview !== true && this.analytics.enabled ? site : null;
    if (!this.metrics.enabled && !counted) return this.answer(site, req, res);
    const start = performance.now();
    this.answer(site, req, res);
    // A cached file is answered before answer() returns: counted here, with no listener
    // on the response. Only answers that wait (storage, a gate form) listen for 'finish'.
    if (res.writableEnded) this.count(counted, req, res, start);
    else res.once('finish', () => this.count(counted, req, res, start));
  }

  private answer(site: SiteState | null, req: IncomingMessage, res: ServerResponse): void {
    const head = req.method === 'HEAD';
    if (!site) return this.page(res, 404, PUBLIC_CACHE, PAGES.unknownSite(), head);
    // The spend cap (issue 31): a Set lookup, refreshed in the background, never a query here.
    if (this.pauses.isPaused(site.workspaceId)) {
      res.setHeader('Retry-After', String(this.pauses.retryAfterSeconds()));
      return this.page(res, 503, 'no-store', PAGES.pausedByUsageLimit(), head);
    }

    const gated = site.gateType !== 'none';
    const tags = this.siteHeaders(site);
    if (gated && !this.gates.hasAccess(site, req.headers.cookie)) {
      this.gates.answer(site, req, res).catch((err) => this.fail(err, req, res));
      return;
    }
    const cacheControl = gated ? PRIVATE_CACHE : undefined;

    const live = site.live;
    // Gone whatever the method: an expired deployment's rules and forms are not read (SiteCache).
    if (live !== null && (live.expired || (live.expiresAt !== null && live.expiresAt <= this.clock.nowMs()))) {
      return this.page(res, 410, cacheControl ?? 'no-cache', PAGES.expired(), head, gated, tags);
    }
    // Other methods only ever reach a proxy rule's origin (a static file answers GET and HEAD),
    // or, on a deployment that declares forms, a POST is a form submission (issue 30).
    const readOnly = req.method === 'GET' || head;
    const formPost = !readOnly && req.method === 'POST' && live !== null && live.forms.length > 0;
    if (!readOnly && !formPost && !live?.rules.redirects.proxies) return this.methodNotAllowed(res, cacheControl, gated, tags);
    if (!live) return this.page(res, 404, cacheControl ?? 'no-cache', PAGES.nothingPublished(), head, gated, tags);

    const resolved = this.resolve(site, req, req.url ?? '/');
    // Most answers depend on the path alone; one that a condition decided says so to caches.
    let answer: SiteAnswer;
    let language = false;
    let country = false;
    if (resolved.kind === 'conditional') {
      ({ answer, language, country } = resolved);
    } else {
      answer = resolved;
    }
    if (answer.kind === 'proxy') {
      if (language) res.setHeader('Vary', 'Accept-Language');
      // Not set here: the proxy replaces the origin's caching headers with it (a gated site's are its own).
      return this.proxy.forward(site, answer, req, res, country ? COUNTRY_CACHE : undefined);
    }
    if (formPost) return this.submitForm(site, live, req, res);
    if (!readOnly) return this.methodNotAllowed(res, cacheControl, gated, tags);
    const varied = cacheControl ?? (country ? COUNTRY_CACHE : undefined);
    if (answer.kind === 'file') {
      // Everything below depends on the answer and the site state only: prepared once
      // (a conditional answer is its own object, one per set of request values).
      answer.send ??= {
        file: answer.file,
        status: answer.status,
        cacheControl: varied ?? (answer.immutable ? IMMUTABLE_CACHE : PUBLIC_CACHE),
        gated,
        tags,
        rules: conditionalHeaderChanges(answer.rules, language, country),
        html: answer.file.contentType.startsWith('text/html'),
        heads: [],
      };
      this.sender.send(req, res, answer.send)?.catch((err) => this.fail(err, req, res));
      return;
    }
    if (answer.kind === 'redirect') return this.redirect(res, answer.status, answer.location, varied ?? PUBLIC_CACHE, gated, tags, language);
    return this.page(res, 404, varied ?? PUBLIC_CACHE, PAGES.notFound(), head, gated, tags, language);
  }

  /** A form post (src/forms): after the gate, on any path a proxy rule does not take. */
  private submitForm(site: SiteState, live: LiveDeployment, req: IncomingMessage, res: ServerResponse): void {
    const target = {
      projectId: site.projectId,
      slug: site.slug,
      name: site.name,
      deploymentId: live.id,
      forms: live.forms,
      hasFile: (p: string) => live.files.has(p),
      leadId: site.gateType === 'email' ? this.gates.leadOf(site, req.headers.cookie) : null,
    };
    this.forms.submit(target, req, res, this.clientIp(req)).catch((err) => this.fail(err, req, res));
  }

  private methodNotAllowed(res: ServerResponse, cacheControl: string | undefined, gated: boolean, tags: string[]): void {
    res.setHeader('Allow', 'GET, HEAD');
    this.page(res, 405, cacheControl ?? PUBLIC_CACHE, PAGES.methodNotAllowed(), false, gated, tags);
  }

  /** A redirect from `_redirects` or a canonical URL: no body, the site's headers. */
  private redirect(res: ServerResponse, status: number, location: string, cacheControl: string, gated: boolean, tags: string[], language = false): void {
    const headers = ['Location', location, 'Cache-Control', cacheControl, 'Content-Length', '0', 'X-Content-Type-Options', 'nosniff', ...tags];
    if (gated || language) headers.push('Vary', gated && language ? 'Accept-Language, Cookie' : gated ? 'Cookie' : 'Accept-Language');
    res.writeHead(status, headers);
    res.end();
  }

  /**
   * Headers of every answer of this site, built once per site state: what a CDN in
   * front purges by (the project and the deployment that answered; Cloudflare reads
   * Cache-Tag, Fastly Surrogate-Key; SITE_CACHE_TAG_HEADERS says which), and HSTS.
   */
  private siteHeaders(site: SiteState): string[] {
    if (site.headers) return site.headers;
    const tags = [projectCacheTag(site.projectId), ...(site.live ? [deploymentCacheTag(site.live.id)] : [])];
    site.headers = cacheTagHeaderList(this.config.cacheTagHeaders, tags);
    if (this.hsts) site.headers.push('Strict-Transport-Security', this.hsts);
    return site.headers;
  }

  /** Metrics and analytics of one answer; `site` is the site to count for analytics, null for none. Bytes include headers. */
  private count(site: SiteState | null, req: IncomingMessage, res: ServerResponse, start: number): void {
    if (this.metrics.enabled) this.metrics.observeSite(res.statusCode, (performance.now() - start) / 1000);
    if (site) this.analytics.record(site.projectId, req, res.statusCode, answerBytes(res), sentHtmlFile(res), this.clientIpOf);
  }

  /**
   * Request target → answer, memoised per site state (a new deploy or gate change
   * brings a new state object, so the memo never outlives what it describes). An
   * answer that a conditional rule (query, Language=, Country=, a domain-level source)
   * decided is kept apart, by the request values it read (ConditionalAnswers); every
   * other one per path, as before, so a site without conditions pays nothing for them.
   */
  private resolve(site: SiteState, req: IncomingMessage, url: string): Resolved {
    const memo = (site.resolved ??= new Map());
    const known = memo.get(url);
    if (known !== undefined) return known;
    // Only a redirect's or proxy's target depends on the query string (conditions
    // aside): every other answer is kept per path, so `?utm_source=…` and cache busters
    // never run the rules again.
    const end = url.search(/[?#]/);
    const pathOnly = end === -1 ? url : url.slice(0, end);
    const byPath = pathOnly === url ? undefined : memo.get(pathOnly);
    if (byPath !== undefined && byPath.kind !== 'redirect' && byPath.kind !== 'proxy') return byPath;

    const needs = site.live!.rules.needs;
    let conditional = this.conditional.get(site);
    let key: string | undefined;
    if (conditional?.isConditional(pathOnly)) {
      key = this.conditionalKey(req, url, needs);
      const hit = conditional.get(key);
      if (hit !== undefined) return hit;
    }
    const trace: AnswerTrace = { conditional: false, language: false, country: false };
    const answer = this.findAnswer(site, url, requestContext(req, needs, this.countryOf), trace);
    if (!trace.conditional) {
      if (memo.size < 4096) memo.set(answer.kind === 'redirect' || answer.kind === 'proxy' ? url : pathOnly, answer);
      return answer;
    }
    // Without a GeoIP database no request has a country: the answer cannot vary by it.
    const entry: ConditionalAnswer<SiteAnswer> = { kind: 'conditional', answer, language: trace.language, country: trace.country && this.geoip.available };
    if (!conditional) this.conditional.set(site, (conditional = new ConditionalAnswers(site.chargeAnswer)));
    conditional.set(pathOnly, key ?? this.conditionalKey(req, url, needs), entry);
    return entry;
  }

  /** The request values a conditional answer can depend on (only those the site's rules read). */
  private conditionalKey(req: IncomingMessage, url: string, needs: RequestNeeds): string {
    return conditionalKey(
      url,
      needs.host ? req.headers.host : undefined,
      needs.language ? req.headers['accept-language'] : undefined,
      needs.country ? this.countryOf(req) : undefined,
    );
  }

  /** `_redirects`, then canonical URLs, then not-found handling (rules/resolve.ts); `_headers` on file answers. */
  private findAnswer(site: SiteState, url: string, context: RequestContext, trace: AnswerTrace): SiteAnswer {
    const { files, rules } = site.live!;
    const path = parseRequestPath(url);
    const single = path === null ? undefined : this.findFile(site, path);
    const resolved = single
      ? ({ kind: 'file', path: single.path, status: 200 } as const)
      : resolveRequest(path, queryOf(url), rules.redirects, (p) => files.has(p), context, trace);
    if (resolved.kind !== 'file') return resolved;
    // Matched against the path asked for (as Cloudflare does), not the file a rewrite serves;
    // blocks for a host against the host asked for (context.host, filled when rules.needs says
    // so). The answer may stay in the per-path memo: a site state is loaded per host (SiteCache
    // keys it by slug, custom domain or preview label, all from the normalised Host), so every
    // request that reaches this state has this same host.
    let changes = path === null ? NO_HEADER_CHANGES : headersFor(rules.headers, path, context.host);
    if (site.gateType !== 'none') changes = gatedHeaderChanges(changes);
    if (site.preview) changes = previewHeaderChanges(changes);
    return {
      kind: 'file',
      file: single ?? files.get(resolved.path)!,
      status: resolved.status,
      // A rewrite's target is cached under the URL asked for, whose content can change.
      immutable: resolved.status === 200 && resolved.path === path && isHashedAssetPath(path),
      rules: changes,
    };
  }

  /** The one file of a static_file deployment answers its root. */
  private findFile(site: SiteState, path: string): SiteFile | undefined {
    const files = site.live!.files;
    if (path === '' && site.type === 'static_file' && files.size === 1) return files.values().next().value;
    return undefined;
  }

  private clientIp(req: IncomingMessage): string {
    return clientAddress(req, this.config.trustProxy);
  }

  private page(res: ServerResponse, status: number, cacheControl: string, html: string, head: boolean, gated = false, tags?: string[], language = false): void {
    const body = Buffer.from(html);
    const headers: OutgoingHttpHeaders = {
      'Content-Type': HTML,
      'Content-Length': body.length,
      'Cache-Control': gated ? PRIVATE_CACHE : cacheControl,
      'X-Content-Type-Options': 'nosniff',
      ...PAGE_HEADERS,
    };
    if (gated || language) headers.Vary = gated && language ? 'Accept-Language, Cookie' : gated ? 'Cookie' : 'Accept-Language';
    if (this.hsts) headers['Strict-Transport-Security'] = this.hsts;
    if (tags) for (let i = 0; i < tags.length; i += 2) headers[tags[i]] = tags[i + 1];
    res.writeHead(status, headers);
    res.end(head ? undefined : body);
  }
}

/** A URL's raw query string (without "?"), for redirects that keep it. */
function queryOf(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return '';
  const hash = url.indexOf('#', q);
  return url.slice(q + 1, hash === -1 ? undefined : hash);
}
