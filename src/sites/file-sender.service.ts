import type { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

import { blobKey, variantKey } from '../blobs/blob-keys';
import { BlobVariants, Variants } from '../blobs/blob-variants.service';
import { PAGE_HEADER_LIST, PAGES } from '../common/site-pages';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { chooseEncoding, Encoding, etagFor, isCompressible, notModifiedEtag, StoredEncoding } from '../shared/encoding';
import { applyHeaderChanges, HeaderChanges } from '../shared/site-rules/headers';
import { StorageProvider } from '../storage/storage.provider';
import { parseSingleRange, rangeAllowedBy } from './range';
import { FileSend, SiteFile, StoredBody } from './site-cache.service';

export const PRIVATE_CACHE = 'private, no-store';
export const HTML = 'text/html; charset=utf-8';
/** Set on a response whose body is an HTML file (what makes a page view). */
const HTML_FILE = Symbol('htmlFile');
type Tagged = ServerResponse & { [HTML_FILE]?: boolean };

/** Whether this response sent an HTML file (a page view, for analytics). */
export function sentHtmlFile(res: ServerResponse): boolean {
  return (res as Tagged)[HTML_FILE] === true;
}

/**
 * Sends one file of a deployment once the router has chosen it (SiteRouter: which site,
 * which deployment, which gate, which rule answer): content encoding, ranges,
 * conditional requests, the answer's headers, and the bytes, from memory or from storage.
 */
@Injectable()
export class FileSender {
  private readonly logger = new Logger(FileSender.name);
  private readonly bytes: LRUCache<string, Buffer>;
  /** `available|Accept-Encoding` → chosen encoding. */
  private readonly negotiated = new Map<string, Encoding | null>();

  constructor(
    private readonly config: AppConfig,
    private readonly storage: StorageProvider,
    private readonly metrics: MetricsService,
    private readonly variants: BlobVariants,
  ) {
    this.bytes = new LRUCache<string, Buffer>({
      maxSize: Math.max(1, config.SITE_FILE_CACHE_BYTES),
      sizeCalculation: (b) => Math.max(1, b.length),
    });
    metrics.watchFileCache(() => this.bytes.calculatedSize);
  }

  /**
   * Sends a prepared file answer. Returns a promise only when it has to wait (the
   * stored copies unknown, or the bytes not in memory); the caller answers its failure.
   */
  send(req: IncomingMessage, res: ServerResponse, send: FileSend): Promise<void> | undefined {
    const { file } = send;
    file.compressible ??= isCompressible(file.contentType, file.size);
    if (!file.compressible) return this.sendEncoded(req, res, send, undefined);
    // Which compressed copies exist: known in memory after the first answer of this content.
    const known = this.variants.peek(file.sha256);
    if (known) return this.sendEncoded(req, res, send, known.variants);
    return this.variants.lookup(file.sha256).then((k) => this.sendEncoded(req, res, send, k.variants));
  }

  /**
   * Answers with one representation of the file. `variants` is undefined for a file
   * that is never compressed (no negotiation, no Vary), else the stored copies.
   */
  private sendEncoded(req: IncomingMessage, res: ServerResponse, send: FileSend, variants: Variants | undefined): Promise<void> | undefined {
    const { file, status, cacheControl, gated, tags, rules } = send;
    const head = req.method === 'HEAD';
    if (send.html) (res as Tagged)[HTML_FILE] = true;
    const vary = variants !== undefined;
    const ifNoneMatch = req.headers['if-none-match'];
    const rangeHeader = req.headers.range;
    // A range is always of the identity bytes (as nginx does): a byte offset into a
    // Brotli stream is of no use to anyone, and the bytes must not depend on the coding.
    const range =
      status === 200 && rangeHeader !== undefined && rangeAllowedBy(req.headers['if-range'] as string | undefined, file.etag)
        ? parseSingleRange(rangeHeader, file.size)
        : NO_RANGE;
    let encoding: Encoding = 'identity';
    if (vary && range.kind === 'none') {
      const chosen = this.negotiate(req.headers['accept-encoding'], variants);
      if (chosen === null) {
        this.notAcceptable(res, head, gated, tags);
        return;
      }
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
      if (encoding === 'identity') return this.sendFromStorage(res, file, body, status, headers);
      return this.sendFromStorage(res, file, body, status, headers).catch((err: unknown) => {
        if (!(err instanceof MissingObject)) throw err;
        // A copy the collector took (on any instance): this content's copies are
        // unknown again, and this answer goes out uncompressed.
        this.variants.forget(file.sha256);
        return this.sendEncoded(req, res, send, NO_VARIANTS);
      });
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
    return this.sendFromStorage(res, file, body, 206, headers, { start, end });
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
    if (!object) throw new MissingObject(`object ${body.storageKey} of ${file.path} is missing from storage`);
    res.writeHead(status, headers);
    object.stream.on('error', (err) => {
      this.logger.error(`streaming ${body.storageKey} failed: ${err.message}`);
      res.destroy(err);
    });
    object.stream.pipe(res);
  }

  private async readWhole(file: SiteFile, body: Body): Promise<Buffer> {
    const object = await this.storage.get(body.storageKey);
    if (!object) throw new MissingObject(`object ${body.storageKey} of ${file.path} is missing from storage`);
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    // Identity bytes and compressed copies share one memory bound.
    this.bytes.set(body.cacheKey, whole);
    return whole;
  }
}

const NO_RANGE = { kind: 'none' } as const;
/** Compressible, with no stored copy: answered uncompressed, still varying by Accept-Encoding. */
const NO_VARIANTS: Variants = {};

/** An object the answer needs is not in storage (both checks happen before any header is written). */
class MissingObject extends Error {}

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
