import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { blobKey } from '../deployments/blob-store.service';
import { StorageProvider } from '../storage/storage.provider';
import { safeNextPath } from './gate-cookie';
import { GateService } from './gate.service';
import { HostRules, routeHost } from './host';
import { GATE_PATH, gatePage, PAGES } from './pages';
import { parseSingleRange } from './range';
import { candidatePaths, isHashedAssetPath, parseRequestPath } from './request-path';
import { SiteCache, SiteFile, SiteState } from './site-cache.service';

const PUBLIC_CACHE = 'public, max-age=0, must-revalidate';
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
const PRIVATE_CACHE = 'private, no-store';
const HTML = 'text/html; charset=utf-8';
const GATE_FORM_LIMIT = 16 * 1024;
const PASSWORD_LIMIT = 1024;

/** What a gate kind needs from the router; the email gate plugs in beside the password gate. */
export interface GateHandler {
  /** Answers a form post to GATE_PATH (never called with access already granted). */
  submit(site: SiteState, form: URLSearchParams, ip: string, res: ServerResponse): Promise<void>;
}

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
  private readonly gates = new Map<string, GateHandler>();

  constructor(
    private readonly config: AppConfig,
    private readonly sites: SiteCache,
    private readonly storage: StorageProvider,
    private readonly gate: GateService,
    private readonly clock: Clock,
  ) {
    this.hostRules = { sitesDomain: config.SITES_DOMAIN, apiHosts: config.apiHosts };
    this.bytes = new LRUCache<string, Buffer>({
      maxSize: Math.max(1, config.SITE_FILE_CACHE_BYTES),
      sizeCalculation: (b) => Math.max(1, b.length),
    });
    this.gates.set('password', { submit: (site, form, ip, res) => this.submitPassword(site, form, ip, res) });
  }

  registerGate(kind: string, handler: GateHandler): void {
    this.gates.set(kind, handler);
  }

  /**
   * Wraps the API's request listener: site hosts are answered here, everything else
   * goes on to `api`.
   */
  dispatcher(api: (req: IncomingMessage, res: ServerResponse) => void) {
    return (req: IncomingMessage, res: ServerResponse): void => {
      const route = routeHost(req.headers.host, this.hostRules);
      if (route.kind === 'api') return api(req, res);
      if (route.kind === 'custom' && this.hostRules.apiHosts.length === 0) return api(req, res);
      const slug = route.kind === 'site' ? route.slug : undefined;
      this.handle(slug, req, res).catch((err) => this.fail(err, req, res));
    };
  }

  private fail(err: unknown, req: IncomingMessage, res: ServerResponse): void {
    this.logger.error(`site request failed: ${req.method} ${req.headers.host}${(req.url ?? '').split('?')[0]}: ${(err as Error).message}`, (err as Error).stack);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.page(res, 500, 'no-store', '<!doctype html><title>Server error</title><h1>Something went wrong</h1>', req.method === 'HEAD');
  }

  private async handle(slug: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const head = req.method === 'HEAD';
    const found = slug === undefined ? null : this.sites.bySlug(slug);
    const site = found instanceof Promise ? await found : found;
    if (!site) return this.page(res, 404, PUBLIC_CACHE, PAGES.unknownSite(), head);

    const gated = site.gateType !== 'none';
    if (gated && !this.gate.hasAccess(site, req.headers.cookie)) return this.answerGate(site, req, res);
    const cacheControl = gated ? PRIVATE_CACHE : undefined;

    if (req.method !== 'GET' && !head) {
      res.setHeader('Allow', 'GET, HEAD');
      return this.page(res, 405, cacheControl ?? PUBLIC_CACHE, PAGES.methodNotAllowed(), false, gated);
    }
    const live = site.live;
    if (!live) return this.page(res, 404, cacheControl ?? 'no-cache', PAGES.nothingPublished(), head, gated);
    if (live.expired || (live.expiresAt !== null && live.expiresAt <= this.clock.now().getTime())) {
      return this.page(res, 410, cacheControl ?? 'no-cache', PAGES.expired(), head, gated);
    }

    const path = parseRequestPath(req.url ?? '/');
    const file = path === null ? undefined : this.findFile(site, path);
    if (!file) {
      const custom = live.files.get('404.html');
      if (custom) return this.sendFile(req, res, custom, 404, cacheControl ?? PUBLIC_CACHE, gated);
      return this.page(res, 404, cacheControl ?? PUBLIC_CACHE, PAGES.notFound(), head, gated);
    }
    return this.sendFile(req, res, file, 200, cacheControl ?? (isHashedAssetPath(file.path) ? IMMUTABLE_CACHE : PUBLIC_CACHE), gated);
  }

  private findFile(site: SiteState, path: string): SiteFile | undefined {
    const files = site.live!.files;
    if (path === '' && site.type === 'static_file' && files.size === 1) return files.values().next().value;
    for (const candidate of candidatePaths(path)) {
      const file = files.get(candidate);
      if (file) return file;
    }
    return undefined;
  }

  private async sendFile(req: IncomingMessage, res: ServerResponse, file: SiteFile, status: number, cacheControl: string, gated: boolean): Promise<void> {
    const headers: OutgoingHttpHeaders = {
      'Content-Type': file.contentType,
      ETag: file.etag,
      'Cache-Control': cacheControl,
      'X-Content-Type-Options': 'nosniff',
      'Accept-Ranges': 'bytes',
    };
    if (gated) headers.Vary = 'Cookie';
    const head = req.method === 'HEAD';
    if (status === 200 && etagMatches(req.headers['if-none-match'], file.etag)) {
      delete headers['Content-Type'];
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const range = status === 200 ? parseSingleRange(req.headers.range as string | undefined, file.size) : { kind: 'none' as const };
    if (range.kind === 'unsatisfiable') {
      headers['Content-Range'] = `bytes */${file.size}`;
      headers['Content-Type'] = HTML;
      const body = Buffer.from(PAGES.rangeNotSatisfiable());
      headers['Content-Length'] = body.length;
      res.writeHead(416, headers);
      res.end(head ? undefined : body);
      return;
    }
    const start = range.kind === 'range' ? range.start : 0;
    const end = range.kind === 'range' ? range.end : file.size - 1;
    const length = file.size === 0 ? 0 : end - start + 1;
    if (range.kind === 'range') headers['Content-Range'] = `bytes ${start}-${end}/${file.size}`;
    headers['Content-Length'] = length;
    const code = range.kind === 'range' ? 206 : status;

    const cached = this.bytes.get(file.sha256);
    if (cached) {
      res.writeHead(code, headers);
      res.end(head ? undefined : range.kind === 'range' ? cached.subarray(start, end + 1) : cached);
      return;
    }
    if (head) {
      res.writeHead(code, headers);
      res.end();
      return;
    }
    if (file.size <= this.config.SITE_FILE_CACHE_MAX_FILE_BYTES) {
      const whole = await this.readWhole(file);
      res.writeHead(code, headers);
      res.end(range.kind === 'range' ? whole.subarray(start, end + 1) : whole);
      return;
    }
    const object = await this.storage.get(blobKey(file.sha256), range.kind === 'range' ? { start, end } : undefined);
    if (!object) throw new Error(`object of ${file.path} (${file.sha256}) is missing from storage`);
    res.writeHead(code, headers);
    object.stream.on('error', (err) => {
      this.logger.error(`streaming ${file.sha256} failed: ${err.message}`);
      res.destroy(err);
    });
    object.stream.pipe(res);
  }

  private async readWhole(file: SiteFile): Promise<Buffer> {
    const object = await this.storage.get(blobKey(file.sha256));
    if (!object) throw new Error(`object of ${file.path} (${file.sha256}) is missing from storage`);
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    this.bytes.set(file.sha256, whole);
    return whole;
  }

  /** A gated site without a valid cookie: the gate's form, for every path and method. */
  private async answerGate(site: SiteState, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const handler = this.gates.get(site.gateType);
    if (req.method === 'POST' && path === GATE_PATH && handler) {
      const form = await readForm(req);
      if (!form) return this.page(res, 413, PRIVATE_CACHE, gatePage({ kind: site.gateType as 'password' | 'email', siteName: site.name, next: '/', error: 'The form was too large.' }), false, true);
      return handler.submit(site, form, this.clientIp(req), res);
    }
    const next = path === GATE_PATH ? '/' : safeNextPath(req.url);
    const kind = site.gateType === 'email' ? 'email' : 'password';
    return this.page(res, 401, PRIVATE_CACHE, gatePage({ kind, siteName: site.name, next }), req.method === 'HEAD', true);
  }

  private async submitPassword(site: SiteState, form: URLSearchParams, ip: string, res: ServerResponse): Promise<void> {
    const next = safeNextPath(form.get('next'));
    const retryAfter = await this.gate.passwordRetryAfter(site, ip);
    if (retryAfter > 0) {
      res.setHeader('Retry-After', String(retryAfter));
      return this.page(res, 429, PRIVATE_CACHE, PAGES.tooManyAttempts(retryAfter), false, true);
    }
    const password = form.get('password') ?? '';
    const ok = password.length > 0 && password.length <= PASSWORD_LIMIT && (await this.gate.checkPassword(site, ip, password));
    if (!ok) {
      return this.page(res, 401, PRIVATE_CACHE, gatePage({ kind: 'password', siteName: site.name, next, error: 'That password is not right. Try again.' }), false, true);
    }
    this.grant(site, res, next);
  }

  /** Sets the access cookie and sends the visitor back to the page first asked for. */
  grant(site: SiteState, res: ServerResponse, next: string): void {
    res.writeHead(303, {
      Location: next,
      'Set-Cookie': this.gate.accessCookie(site),
      'Cache-Control': PRIVATE_CACHE,
      Vary: 'Cookie',
      'Content-Length': 0,
      'X-Content-Type-Options': 'nosniff',
    });
    res.end();
  }

  clientIp(req: IncomingMessage): string {
    if (this.config.TRUST_PROXY) {
      const forwarded = req.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
      if (first) return first;
    }
    return req.socket.remoteAddress ?? 'unknown';
  }

  page(res: ServerResponse, status: number, cacheControl: string, html: string, head: boolean, gated = false): void {
    const body = Buffer.from(html);
    const headers: OutgoingHttpHeaders = {
      'Content-Type': HTML,
      'Content-Length': body.length,
      'Cache-Control': gated ? PRIVATE_CACHE : cacheControl,
      'X-Content-Type-Options': 'nosniff',
    };
    if (gated) headers.Vary = 'Cookie';
    res.writeHead(status, headers);
    res.end(head ? undefined : body);
  }
}

/** `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Reads a small urlencoded form body; undefined when it is too large. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATE_FORM_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
