import { Worker } from 'node:worker_threads';

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';

import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import type { StoredEncoding } from '../shared/encoding';
import { StorageProvider } from '../storage/storage.provider';
import { blobKey, variantKey } from './blob-keys';
import { BlobsRepository } from './blobs.repository';

/** Sizes of a blob's stored compressed copies; an absent encoding has no copy. */
export type Variants = Partial<Record<StoredEncoding, number>>;

export interface KnownVariants {
  variants: Variants;
  /** False while the copies are still to be computed (the answer is identity until then). */
  done: boolean;
}

/** A compressed copy is kept only when it saves at least 10 % of the bytes. */
export function worthStoring(encodedBytes: number, originalBytes: number): boolean {
  return encodedBytes <= originalBytes * 0.9;
}

/**
 * Brotli's best quality: ~20 % fewer bytes than gzip -6 on real bundles, but ~3 s a
 * megabyte of CPU, which is why it never runs on the request or deploy path. Above
 * 8 MB quality 9 (~30x faster, a few % larger) keeps one huge file from holding the
 * queue for minutes.
 */
export const BROTLI_QUALITY = 11;
export const BROTLI_LARGE_QUALITY = 9;
export const BROTLI_LARGE_BYTES = 8 * 1024 * 1024;
/** gzip -9: on minified JS and CSS it is no slower than -6 and a little smaller. */
export const GZIP_LEVEL = 9;

/** How long "not computed yet" is believed before the database is asked again (another instance may have done it). */
const PENDING_TTL_MS = 2000;
/**
 * One entry's estimated heap bytes: its 64-character key, the object and its sizes, and
 * the LRU's own slot (measured ~230 with 200,000 entries, rounded up).
 */
const KNOWN_ENTRY_BYTES = 256;
/** Its share of the site router's memory budget (SITE_CACHE_MB): the site cache (src/sites) takes the rest. */
export const VARIANTS_BUDGET_SHARE = 1 / 16;
const MAX_QUEUE = 100_000;

/**
 * The compressor, in a worker thread at the lowest CPU priority (Linux nice is per
 * thread): compression only takes CPU that requests and deploys leave idle. Plain
 * JavaScript source, so it runs the same under ts-node, jest and the built app.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const zlib = require('node:zlib');
try { require('node:os').setPriority(19); } catch {}
parentPort.on('message', ({ id, bytes, quality, level }) => {
  try {
    const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const br = zlib.brotliCompressSync(input, { params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: input.length,
    } });
    const gzip = zlib.gzipSync(input, { level });
    parentPort.postMessage({ id, br, gzip });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

interface Job {
  resolve(result: { br: Buffer; gzip: Buffer }): void;
  reject(err: Error): void;
}

/**
 * Brotli and gzip copies of compressible blobs, computed once per content hash in
 * the background and stored beside the blob (`<blobKey>.br`, `.gz`); their sizes
 * live on the blob row so an answer's Content-Length needs no storage call. A deploy
 * schedules its compressible files after it commits; the site router schedules any
 * it serves that have none yet (after a restart, or deployed before this existed)
 * and answers identity until they exist. The collector deletes them with the blob.
 */
@Injectable()
export class BlobVariants implements OnModuleDestroy {
  private readonly logger = new Logger(BlobVariants.name);
  private readonly known: LRUCache<string, KnownVariants>;
  private readonly lookups = new Map<string, Promise<KnownVariants>>();
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private worker?: Worker;
  private jobs = new Map<number, Job>();
  private nextJob = 0;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: BlobsRepository,
    private readonly storage: StorageProvider,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.known = new LRUCache<string, KnownVariants>({
      maxSize: Math.max(KNOWN_ENTRY_BYTES, Math.floor(config.siteCacheBytes * VARIANTS_BUDGET_SHARE)),
      sizeCalculation: () => KNOWN_ENTRY_BYTES,
    });
  }

  /** Estimated bytes of what is known of blobs' copies (the site cache's metrics). */
  get knownBytes(): number {
    return this.known.calculatedSize;
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    this.queued.clear();
    const worker = this.worker;
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error('shutting down'));
    this.jobs.clear();
    await worker?.terminate();
    this.wakeIdle();
  }

  /**
   * Forgets what was known of a blob's copies: the blob was collected (here, or on another
   * instance, which a missing copy tells), and its content deployed again has none yet.
   */
  forget(sha256: string): void {
    this.known.delete(sha256);
  }

  /** What is known of a blob's copies without waiting; undefined: ask `lookup`. */
  peek(sha256: string): KnownVariants | undefined {
    return this.known.get(sha256);
  }

  /** The blob's copies from the database (one query per hash in flight); schedules them when not computed yet. */
  lookup(sha256: string): Promise<KnownVariants> {
    const known = this.known.get(sha256);
    if (known) return Promise.resolve(known);
    let pending = this.lookups.get(sha256);
    if (!pending) {
      pending = this.load(sha256).finally(() => this.lookups.delete(sha256));
      this.lookups.set(sha256, pending);
    }
    return pending;
  }

  private async load(sha256: string): Promise<KnownVariants> {
    const row = await this.rows.variantsOf(sha256);
    if (!row || row.variants_at === null) {
      const pending: KnownVariants = { variants: {}, done: false };
      this.known.set(sha256, pending, { ttl: PENDING_TTL_MS });
      if (row) this.schedule([sha256]);
      return pending;
    }
    return this.remember(sha256, sizes(row.br_size, row.gzip_size));
  }

  private remember(sha256: string, variants: Variants): KnownVariants {
    const known: KnownVariants = { variants, done: true };
    // Final: content-addressed bytes never change, so neither do their copies.
    this.known.set(sha256, known, { ttl: 0 });
    return known;
  }

  /** Queues blobs for compression (callers pass only compressible ones); returns at once. */
  schedule(sha256s: Iterable<string>): void {
    if (this.closed) return;
    for (const sha256 of sha256s) {
      if (this.queued.has(sha256) || this.known.get(sha256)?.done || this.queue.length >= MAX_QUEUE) continue;
      this.queued.add(sha256);
      this.queue.push(sha256);
    }
    if (!this.running && this.queue.length > 0) {
      this.running = true;
      void this.drain();
    }
  }

  /** Resolves when the queue is empty and nothing is being compressed (tests, benchmarks). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async drain(): Promise<void> {
    try {
      while (!this.closed && this.queue.length > 0) {
        const sha256 = this.queue.shift()!;
        try {
          await this.compress(sha256);
        } catch (err) {
          if (!this.closed) this.logger.warn(`compressing blob ${sha256} failed: ${(err as Error).message}`);
        } finally {
          this.queued.delete(sha256);
        }
      }
    } finally {
      this.running = false;
      this.wakeIdle();
    }
  }

  /** Computes, stores and records one blob's copies (each kept only when it saves >= 10 %). */
  private async compress(sha256: string): Promise<void> {
    const row = await this.rows.storedForCompression(sha256);
    if (!row) return;
    if (row.variants_at !== null) {
      this.remember(sha256, sizes(row.br_size, row.gzip_size));
      return;
    }
    const object = await this.storage.get(blobKey(sha256));
    if (!object) return;
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const { br, gzip } = await this.run(bytes);
    const keep: [StoredEncoding, Buffer][] = [];
    if (worthStoring(br.length, bytes.length)) keep.push(['br', br]);
    if (worthStoring(gzip.length, bytes.length)) keep.push(['gzip', gzip]);
    const variants: Variants = Object.fromEntries(keep.map(([e, b]) => [e, b.length]));
    // The row lock keeps the collector (FOR UPDATE SKIP LOCKED) from deleting the blob
    // between our writes and our record; a KEY SHARE lock does not hold up deploys,
    // whose commit takes FOR SHARE. A blob collected before we got here is left alone.
    const recorded = await this.dataSource.transaction(async (m) => {
      if (!(await this.rows.lockForVariants(m, sha256))) return false;
      for (const [encoding, body] of keep) await this.storage.put(variantKey(sha256, encoding), body, body.length);
      await this.rows.recordVariants(m, sha256, variants, this.clock.now());
      return true;
    });
    if (recorded) this.remember(sha256, variants);
    else this.known.delete(sha256);
  }

  private run(bytes: Buffer): Promise<{ br: Buffer; gzip: Buffer }> {
    // A compression still reading its blob when the app shut down must not start a new worker.
    if (this.closed) return Promise.reject(new Error('shutting down'));
    if (!this.worker) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref();
      worker.on('message', (msg: { id: number; br?: Uint8Array; gzip?: Uint8Array; error?: string }) => {
        const job = this.jobs.get(msg.id);
        if (!job) return;
        this.jobs.delete(msg.id);
        if (msg.error !== undefined) job.reject(new Error(msg.error));
        else
          job.resolve({
            br: Buffer.from(msg.br!.buffer, msg.br!.byteOffset, msg.br!.byteLength),
            gzip: Buffer.from(msg.gzip!.buffer, msg.gzip!.byteOffset, msg.gzip!.byteLength),
          });
      });
      const lost = (err: Error) => {
        if (this.worker !== worker) return;
        this.worker = undefined;
        for (const job of this.jobs.values()) job.reject(err);
        this.jobs.clear();
      };
      worker.on('error', lost);
      worker.on('exit', (code) => lost(new Error(`compression worker exited with ${code}`)));
      this.worker = worker;
    }
    const id = this.nextJob++;
    const quality = bytes.length > BROTLI_LARGE_BYTES ? BROTLI_LARGE_QUALITY : BROTLI_QUALITY;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      this.worker!.postMessage({ id, bytes, quality, level: GZIP_LEVEL });
    });
  }
}

function sizes(br: string | number | null, gzip: string | number | null): Variants {
  const variants: Variants = {};
  if (br !== null) variants.br = Number(br);
  if (gzip !== null) variants.gzip = Number(gzip);
  return variants;
}
