import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

import { AnalyticsRecorder } from '../analytics/analytics-recorder.service';
import { blobKey, variantKey } from '../blobs/blob-store.service';
import { BlobVariants, Variants } from '../blobs/blob-variants.service';
import { clientAddress } from '../common/client-address';
import { isDatabaseUnavailable } from '../common/db-errors';
import { DATABASE_RETRY_AFTER_SECONDS } from '../common/error-body';
import { ApiError } from '../common/errors';
import { PAGE_HEADER_LIST, PAGE_HEADERS, PAGES } from '../common/site-pages';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { Gates } from '../gates/gates.service';
import { MetricsService } from '../metrics/metrics.service';
import { couldBeCustomDomain } from '../shared/domain-name';
import { chooseEncoding, Encoding, etagFor, isCompressible, notModifiedEtag, StoredEncoding } from '../shared/encoding';
import type { PreviewTarget } from '../shared/preview-label';
import { applyHeaderChanges, gatedHeaderChanges, HeaderChanges, headersFor, NO_HEADER_CHANGES } from '../shared/site-rules/headers';
import { isHashedAssetPath, parseRequestPath } from '../shared/site-rules/request-path';
import { resolveRequest } from '../shared/site-rules/resolve';
import { deploymentCacheTag, projectCacheTag } from '../site-webhook/cache-tags';
import { StorageProvider } from '../storage/storage.provider';
import { HostRoute, HostRules, routeHost } from './host';
import { parseSingleRange } from './range';
import { FileSend, SiteAnswer, SiteCache, SiteFile, SiteState, StoredBody } from './site-cache.service';

const PUBLIC_CACHE = 'public, max-age=0, must-revalidate';
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
const PRIVATE_CACHE = 'private, no-store';
const HTML = 'text/html; charset=utf-8';
/** Set on a response whose body is an HTML file (what makes a page view). */
const HTML_FILE = Symbol('htmlFile');
type Tagged = ServerResponse & { [HTML_FILE]?: boolean };

/**
 * Serves deployed sites, chosen by the Host header, as a plain node:http handler in
 * front of Express: a site request never pays for Express's middleware, and never
 * reaches an API route.
 */
@Injectable()
export class SiteRouter {
  private readonly logger = new Logger(SiteRouter.name);
  private readonly hostRules: HostRules;
  private readonly bytes: LRUCache<string, Buffer>;
  private readonly routes = new Map<string, HostRoute>();
  private readonly hsts?: string;
  private readonly clientIpOf: (req: IncomingMessage) => string;
  /** `available|Accept-Encoding` → chosen encoding. */
  private readonly negotiated = new Map<string, Encoding | null>();

  constructor(
    private readonly config: AppConfig,
    private readonly sites: SiteCache,
    private readonly storage: StorageProvider,
    private readonly gates: Gates,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly variants: BlobVariants,
    private readonly analytics: AnalyticsRecorder,
  ) {
    this.hostRules = { sitesDomain: config.SITES_DOMAIN, apiHosts: config.apiHosts };
    this.bytes = new LRUCache<string, Buffer>({
      maxSize: Math.max(1, config.SITE_FILE_CACHE_BYTES),
      sizeCalculation: (b) => Math.max(1, b.length),
    });
    metrics.watchFileCache(() => this.bytes.calculatedSize);
    this.hsts = config.hstsHeader;
    this.clientIpOf = (req) => this.clientIp(req);
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
    const answer = (site: SiteState | null) => {
      // Every answer of a preview, gate and error pages included, keeps crawlers out
      // (set before serve so each writeHead merges it in). A project whose slug is the
      // whole label (taken before slugs lost "--") is its ordinary site.
      if (!site || site.preview) res.setHeader('X-Robots-Tag', 'noindex');
      this.serve(site, req, res);
    };
    const found = this.sites.byPreview(label, target);
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
      if (this.routes.size >= 10_000) this.routes.clear();
      route = routeHost(host, this.hostRules);
      this.routes.set(key, route);
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
    // Taken now: Node detaches the socket from the response before 'finish' listeners run.
    const socket = req.socket;
    const before = socket.bytesWritten;
    this.answer(site, req, res);
    // A cached file is answered before answer() returns: counted here, with no listener
    // on the response. Only answers that wait (storage, a gate form) listen for 'finish'.
    if (res.writableEnded) this.count(counted, req, res, start, socket.bytesWritten - before);
    else res.once('finish', () => this.count(counted, req, res, start, socket.bytesWritten - before));
  }

  private answer(site: SiteState | null, req: IncomingMessage, res: ServerResponse): void {
    const head = req.method === 'HEAD';
    if (!site) return this.page(res, 404, PUBLIC_CACHE, PAGES.unknownSite(), head);

    const gated = site.gateType !== 'none';
    const tags = this.siteHeaders(site);
    if (gated && !this.gates.hasAccess(site, req.headers.cookie)) {
      this.gates.answer(site, req, res).catch((err) => this.fail(err, req, res));
      return;
    }
    const cacheControl = gated ? PRIVATE_CACHE : undefined;

    if (req.method !== 'GET' && !head) {
      res.setHeader('Allow', 'GET, HEAD');
      return this.page(res, 405, cacheControl ?? PUBLIC_CACHE, PAGES.methodNotAllowed(), false, gated, tags);
    }
    const live = site.live;
    if (!live) return this.page(res, 404, cacheControl ?? 'no-cache', PAGES.nothingPublished(), head, gated, tags);
    if (live.expired || (live.expiresAt !== null && live.expiresAt <= this.clock.now().getTime())) {
      return this.page(res, 410, cacheControl ?? 'no-cache', PAGES.expired(), head, gated, tags);
    }

    const answer = this.resolve(site, req.url ?? '/');
    if (answer.kind === 'file') {
      // Everything below depends on the answer and the site state only: prepared once.
      answer.send ??= {
        file: answer.file,
        status: answer.status,
        cacheControl: cacheControl ?? (answer.immutable ? IMMUTABLE_CACHE : PUBLIC_CACHE),
        gated,
        tags,
        rules: answer.rules,
        html: answer.file.contentType.startsWith('text/html'),
        heads: [],
      };
      return this.sendFile(req, res, answer.send);
    }
    if (answer.kind === 'redirect') return this.redirect(res, answer.status, answer.location, cacheControl ?? PUBLIC_CACHE, gated, tags);
    return this.page(res, 404, cacheControl ?? PUBLIC_CACHE, PAGES.notFound(), head, gated, tags);
  }

  /** A redirect from `_redirects` or a canonical URL: no body, the site's headers. */
  private redirect(res: ServerResponse, status: number, location: string, cacheControl: string, gated: boolean, tags: string[]): void {
    const headers = ['Location', location, 'Cache-Control', cacheControl, 'Content-Length', '0', 'X-Content-Type-Options', 'nosniff', ...tags];
    if (gated) headers.push('Vary', 'Cookie');
    res.writeHead(status, headers);
    res.end();
  }

  /**
   * Headers of every answer of this site, built once per site state: what a CDN in
   * front purges by (the project and the deployment that answered; Cloudflare reads
   * Cache-Tag, comma-separated, Fastly Surrogate-Key, space-separated), and HSTS.
   */
  private siteHeaders(site: SiteState): string[] {
    if (site.headers) return site.headers;
    const tags = [projectCacheTag(site.projectId), ...(site.live ? [deploymentCacheTag(site.live.id)] : [])];
    site.headers = ['Cache-Tag', tags.join(','), 'Surrogate-Key', tags.join(' ')];
    if (this.hsts) site.headers.push('Strict-Transport-Security', this.hsts);
    return site.headers;
  }

  /** Metrics and analytics of one answer; `site` is the site to count for analytics, null for none. Bytes include headers. */
  private count(site: SiteState | null, req: IncomingMessage, res: ServerResponse, start: number, bytes: number): void {
    if (this.metrics.enabled) this.metrics.observeSite(res.statusCode, (performance.now() - start) / 1000);
    if (site) this.analytics.record(site.projectId, req, res.statusCode, bytes, (res as Tagged)[HTML_FILE] === true, this.clientIpOf);
  }

  /**
   * Request target → answer, memoised per site state (a new deploy or gate change
   * brings a new state object, so the memo never outlives what it describes).
   */
  private resolve(site: SiteState, url: string): SiteAnswer {
    const memo = (site.resolved ??= new Map());
    const known = memo.get(url);
    if (known !== undefined) return known;
    // Only a redirect's Location depends on the query string: every other answer is kept
    // per path, so `?utm_source=…` and cache busters never run the rules again.
    const end = url.search(/[?#]/);
    const pathOnly = end === -1 ? url : url.slice(0, end);
    const byPath = pathOnly === url ? undefined : memo.get(pathOnly);
    if (byPath !== undefined && byPath.kind !== 'redirect') return byPath;
    const answer = this.findAnswer(site, url);
    if (memo.size < 4096) memo.set(answer.kind === 'redirect' ? url : pathOnly, answer);
    return answer;
  }

  /** `_redirects`, then canonical URLs, then not-found handling (rules/resolve.ts); `_headers` on file answers. */
  private findAnswer(site: SiteState, url: string): SiteAnswer {
    const { files, rules } = site.live!;
    const path = parseRequestPath(url);
    const single = path === null ? undefined : this.findFile(site, path);
    const resolved = single
      ? ({ kind: 'file', path: single.path, status: 200 } as const)
      : resolveRequest(path, queryOf(url), rules.redirects, (p) => files.has(p));
    if (resolved.kind !== 'file') return resolved;
    // Matched against the path asked for (as Cloudflare does), not the file a rewrite serves.
    const changes = path === null ? NO_HEADER_CHANGES : headersFor(rules.headers, path);
    return {
      kind: 'file',
      file: single ?? files.get(resolved.path)!,
      status: resolved.status,
      // A rewrite's target is cached under the URL asked for, whose content can change.
      immutable: resolved.status === 200 && resolved.path === path && isHashedAssetPath(path),
      rules: site.gateType !== 'none' ? gatedHeaderChanges(changes) : changes,
    };
  }

  /** The one file of a static_file deployment answers its root. */
  private findFile(site: SiteState, path: string): SiteFile | undefined {
    const files = site.live!.files;
    if (path === '' && site.type === 'static_file' && files.size === 1) return files.values().next().value;
    return undefined;
  }

  private sendFile(req: IncomingMessage, res: ServerResponse, send: FileSend): void {
    const { file } = send;
    file.compressible ??= isCompressible(file.contentType, file.size);
    if (!file.compressible) return this.sendEncoded(req, res, send, undefined);
    // Which compressed copies exist: known in memory after the first answer of this content.
    const known = this.variants.peek(file.sha256);
    if (known) return this.sendEncoded(req, res, send, known.variants);
    this.variants
      .lookup(file.sha256)
      .then((k) => this.sendEncoded(req, res, send, k.variants))
      .catch((err) => this.fail(err, req, res));
  }

  /**
   * Answers with one representation of the file. `variants` is undefined for a file
   * that is never compressed (no negotiation, no Vary), else the stored copies.
   */
  private sendEncoded(req: IncomingMessage, res: ServerResponse, send: FileSend, variants: Variants | undefined): void {
    const { file, status, cacheControl, gated, tags, rules } = send;
    const head = req.method === 'HEAD';
    if (send.html) (res as Tagged)[HTML_FILE] = true;
    const vary = variants !== undefined;
    const ifNoneMatch = req.headers['if-none-match'];
    const rangeHeader = req.headers.range;
    // A range is always of the identity bytes (as nginx does): a byte offset into a
    // Brotli stream is of no use to anyone, and the bytes must not depend on the coding.
    const range = status === 200 && rangeHeader !== undefined ? parseSingleRange(rangeHeader, file.size) : NO_RANGE;
    let encoding: Encoding = 'identity';
    if (vary && range.kind === 'none') {
      const chosen = this.negotiate(req.headers['accept-encoding'], variants);
      if (chosen === null) return this.notAcceptable(res, head, gated, tags);
      encoding = chosen;
    }
    if (status === 200 && ifNoneMatch !== undefined) {
      const etag = vary ? notModifiedEtag(ifNoneMatch, file.etag, encoding) : etagMatches(ifNoneMatch, file.etag) ? file.etag : undefined;
      if (etag !== undefined) {
        // No Content-Encoding on a 304: the ETag names the copy the client holds, which may not be `encoding`.
        const headers = baseHeaders(file, cacheControl, gated, false, tags, vary, 'identity');
        headers[1] = etag;
        res.writeHead(304, withRules(headers, rules));
        res.end();
        return;
      }
    }
    if (range.kind === 'unsatisfiable') {
      const body = Buffer.from(PAGES.rangeNotSatisfiable());
      const headers = baseHeaders(file, cacheControl, gated, false, tags, vary, 'identity');
      headers.push('Content-Type', HTML, 'Content-Range', `bytes */${file.size}`, 'Content-Length', String(body.length), ...PAGE_HEADER_LIST);
      res.writeHead(416, withRules(headers, rules));
      res.end(head ? undefined : body);
      return;
    }
    const body = bodyOf(file, encoding, variants);
    const cached = this.bytes.get(body.cacheKey);
    if (cached && !head) this.metrics.fileCacheHits.inc();
    if (range.kind === 'none') {
      // The common case: whole file, headers built once per answer and representation.
      const index = ENCODING_INDEX[encoding] + (vary ? 3 : 0);
      const headers = (send.heads[index] ??= withRules(wholeFileHeaders(file, cacheControl, gated, tags, vary, encoding, body.size), rules));
      if (cached || head) {
        res.writeHead(status, headers);
        res.end(head ? undefined : cached);
        return;
      }
      this.sendFromStorage(res, file, body, status, headers).catch((err) => this.fail(err, req, res));
      return;
    }
    const { start, end } = range;
    let headers = baseHeaders(file, cacheControl, gated, true, tags, vary, 'identity');
    headers.push('Content-Range', `bytes ${start}-${end}/${file.size}`, 'Content-Length', String(end - start + 1));
    headers = withRules(headers, rules);
    if (cached || head) {
      res.writeHead(206, headers);
      res.end(head ? undefined : cached!.subarray(start, end + 1));
      return;
    }
    this.sendFromStorage(res, file, body, 206, headers, { start, end }).catch((err) => this.fail(err, req, res));
  }

  /** chooseEncoding, memoised: a handful of Accept-Encoding values arrive over and over. */
  private negotiate(acceptEncoding: string | undefined, variants: Variants): Encoding | null {
    if (acceptEncoding === undefined) return 'identity';
    const available = variants.br !== undefined ? (variants.gzip !== undefined ? BR_GZIP : BR) : variants.gzip !== undefined ? GZIP : NONE;
    const key = `${available.join(',')}|${acceptEncoding}`;
    const known = this.negotiated.get(key);
    if (known !== undefined) return known;
    const chosen = chooseEncoding(acceptEncoding, available);
    if (this.negotiated.size >= 1000) this.negotiated.clear();
    this.negotiated.set(key, chosen);
    return chosen;
  }

  /** The client refuses identity and accepts no stored copy (RFC 9110 §12.5.3 lets us say so). */
  private notAcceptable(res: ServerResponse, head: boolean, gated: boolean, tags: string[]): void {
    const body = Buffer.from(PAGES.notAcceptable());
    // no-store: the copies it asks for may exist a moment later.
    const headers = [
      'Content-Type',
      HTML,
      'Content-Length',
      String(body.length),
      'Cache-Control',
      gated ? PRIVATE_CACHE : 'no-store',
      'X-Content-Type-Options',
      'nosniff',
      'Vary',
      gated ? 'Accept-Encoding, Cookie' : 'Accept-Encoding',
      ...tags,
      ...PAGE_HEADER_LIST,
    ];
    res.writeHead(406, headers);
    res.end(head ? undefined : body);
  }

  private async sendFromStorage(
    res: ServerResponse,
    file: SiteFile,
    body: Body,
    status: number,
    headers: string[],
    range?: { start: number; end: number },
  ): Promise<void> {
    this.metrics.fileCacheMisses.inc();
    if (body.size <= this.config.SITE_FILE_CACHE_MAX_FILE_BYTES) {
      const whole = await this.readWhole(file, body);
      res.writeHead(status, headers);
      res.end(range ? whole.subarray(range.start, range.end + 1) : whole);
      return;
    }
    const object = await this.storage.get(body.storageKey, range);
    if (!object) throw new Error(`object ${body.storageKey} of ${file.path} is missing from storage`);
    res.writeHead(status, headers);
    object.stream.on('error', (err) => {
      this.logger.error(`streaming ${body.storageKey} failed: ${err.message}`);
      res.destroy(err);
    });
    object.stream.pipe(res);
  }

  private async readWhole(file: SiteFile, body: Body): Promise<Buffer> {
    const object = await this.storage.get(body.storageKey);
    if (!object) throw new Error(`object ${body.storageKey} of ${file.path} is missing from storage`);
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    // Identity bytes and compressed copies share one memory bound.
    this.bytes.set(body.cacheKey, whole);
    return whole;
  }

  clientIp(req: IncomingMessage): string {
    return clientAddress(req, this.config.trustProxy);
  }

  page(res: ServerResponse, status: number, cacheControl: string, html: string, head: boolean, gated = false, tags?: string[]): void {
    const body = Buffer.from(html);
    const headers: OutgoingHttpHeaders = {
      'Content-Type': HTML,
      'Content-Length': body.length,
      'Cache-Control': gated ? PRIVATE_CACHE : cacheControl,
      'X-Content-Type-Options': 'nosniff',
      ...PAGE_HEADERS,
    };
    if (gated) headers.Vary = 'Cookie';
    if (this.hsts) headers['Strict-Transport-Security'] = this.hsts;
    if (tags) for (let i = 0; i < tags.length; i += 2) headers[tags[i]] = tags[i + 1];
    res.writeHead(status, headers);
    res.end(head ? undefined : body);
  }
}

const NO_RANGE = { kind: 'none' } as const;

/** Per `_headers` result, per server header list (itself memoised per file and policy): the merged list. */
const WITH_RULES = new WeakMap<HeaderChanges, WeakMap<string[], string[]>>();

/** The server's headers with what `_headers` sets and removes; the same array when it does nothing. */
function withRules(headers: string[], rules: HeaderChanges): string[] {
  if (rules.set.length === 0 && rules.remove.length === 0) return headers;
  let memo = WITH_RULES.get(rules);
  if (!memo) WITH_RULES.set(rules, (memo = new WeakMap()));
  let merged = memo.get(headers);
  if (!merged) memo.set(headers, (merged = applyHeaderChanges(headers, rules)));
  return merged;
}

/** A URL's raw query string (without "?"), for redirects that keep it. */
function queryOf(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return '';
  const hash = url.indexOf('#', q);
  return url.slice(q + 1, hash === -1 ? undefined : hash);
}

const BR_GZIP: StoredEncoding[] = ['br', 'gzip'];
const BR: StoredEncoding[] = ['br'];
const GZIP: StoredEncoding[] = ['gzip'];
const NONE: StoredEncoding[] = [];

type Body = StoredBody;

/** Slots of FileSend.heads: identity, br, gzip; plus 3 when the answer varies by Accept-Encoding. */
const ENCODING_INDEX: Record<Encoding, number> = { identity: 0, br: 1, gzip: 2 };

/** Where the bytes of `encoding` are, memoised on the (immutable) manifest entry: a stored copy's length never changes. */
function bodyOf(file: SiteFile, encoding: Encoding, variants: Variants | undefined): Body {
  const bodies = (file.bodies ??= {});
  const key = variants ? encoding : 'identity';
  let body = bodies[key];
  if (!body) {
    body =
      key === 'identity'
        ? { cacheKey: file.sha256, storageKey: blobKey(file.sha256), size: file.size }
        : { cacheKey: `${file.sha256}.${key}`, storageKey: variantKey(file.sha256, key), size: variants![key]! };
    bodies[key] = body;
  }
  return body;
}

/**
 * Headers every file answer carries (as a flat array, the cheapest form for writeHead;
 * the ETag is always at index 1). A compressible file's answers all say
 * `Vary: Accept-Encoding`, identity ones included, so no cache hands a gzip body to a
 * client that cannot read it, or identity to every client after one old one asked.
 */
function baseHeaders(
  file: SiteFile,
  cacheControl: string,
  gated: boolean,
  withType: boolean,
  tags: string[],
  vary = false,
  encoding: Encoding = 'identity',
): string[] {
  const headers = ['ETag', etagFor(file.etag, encoding), 'Cache-Control', cacheControl, 'X-Content-Type-Options', 'nosniff', ...tags];
  // Ranges are of the identity bytes only; an encoded answer does not offer them (nginx does the same).
  if (encoding === 'identity') headers.push('Accept-Ranges', 'bytes');
  else headers.push('Content-Encoding', encoding);
  if (withType) headers.push('Content-Type', file.contentType);
  if (vary || gated) headers.push('Vary', vary ? (gated ? 'Accept-Encoding, Cookie' : 'Accept-Encoding') : 'Cookie');
  return headers;
}

/** Whole-file headers (FileSend.heads keeps them per answer and representation). */
function wholeFileHeaders(file: SiteFile, cacheControl: string, gated: boolean, tags: string[], vary: boolean, encoding: Encoding, size: number): string[] {
  const headers = baseHeaders(file, cacheControl, gated, true, tags, vary, encoding);
  headers.push('Content-Length', String(size));
  return headers;
}

/** `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
