import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import { format } from 'node:util';

import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Logger } from '@nestjs/common';

import {
  assertValidKey,
  type ByteRange,
  type ObjectInfo,
  RangeNotSatisfiableError,
  resolveRange,
  StorageProvider,
  type StoredObject,
} from './storage.provider';

export interface S3StorageOptions {
  /** e.g. http://minio:9000; unset means AWS S3 for `region`. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Both unset: the SDK's default credential chain (env, profile, instance role...). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** true for MinIO, s3rver and most self-hosted stores (bucket in the path, not the host). */
  forcePathStyle: boolean;
  /** Every key is stored under this prefix (e.g. `statichost/`), so one bucket can be shared. */
  keyPrefix?: string;
}

/** Largest body sent as one PutObject; larger (or unknown-size) streams go multipart. */
const SINGLE_PUT_LIMIT = 5 * 1024 * 1024 * 1024;

/**
 * Objects in an S3 bucket (AWS S3, MinIO, Cloudflare R2, s3rver...). A PutObject or a
 * completed multipart upload is atomic in S3: readers see the old object or the new one.
 */
export class S3StorageDriver extends StorageProvider {
  readonly name = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StorageOptions) {
    super();
    if (!options.bucket) throw new Error('S3StorageDriver: a bucket is required');
    if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
      throw new Error('S3StorageDriver: set both the access key id and the secret access key, or neither');
    }
    this.bucket = options.bucket;
    this.prefix = normalisePrefix(options.keyPrefix);
    // The options object (with the secret) is not kept on the instance: only the client holds it.
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // Only send/verify flexible checksums when an operation requires them. Many S3-compatible
      // stores do not understand the default (aws-chunked bodies with trailing CRC32), and
      // some (s3rver) then store the chunk framing as the object's bytes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 5_000, socketTimeout: 60_000 },
      // Without a logger the SDK writes some warnings straight to the console; send them to
      // the app's log instead. Its info/debug lines (one per request) are dropped.
      logger: sdkLogger,
    });
  }

  private keyOf(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }

  async put(key: string, body: Buffer | Readable, size?: number): Promise<void> {
    const Key = this.keyOf(key);
    if (Buffer.isBuffer(body)) {
      if (size !== undefined && size !== body.length) {
        throw new Error(`Storage put ${key}: the body has ${body.length} bytes, not the ${size} announced`);
      }
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentLength: body.length }));
      return;
    }
    if (size !== undefined && Number.isSafeInteger(size) && size >= 0 && size <= SINGLE_PUT_LIMIT) {
      // Known size: stream it in one request. If the stream ends short or runs long, the
      // request fails before S3 commits anything (it has fewer bytes than Content-Length).
      // The SDK pipes the body into the request and would wait forever for the rest of a
      // failed stream: abort the request instead, so the store discards the partial upload.
      const abort = new AbortController();
      let bodyError: Error | undefined;
      const checked = pipeline(body, new ExactLength(size, key), (err) => {
        if (err) {
          bodyError = err;
          abort.abort(err);
        }
      });
      try {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: checked, ContentLength: size }), {
          abortSignal: abort.signal,
        });
      } catch (err) {
        throw bodyError ?? err;
      } finally {
        if (!checked.destroyed) checked.destroy();
      }
      return;
    }
    // Unknown size: lib-storage reads 5 MiB parts (at most queueSize of them in memory);
    // a body that fits one part is sent as one PutObject, a larger one as a multipart
    // upload that only becomes visible when completed (and is aborted on failure).
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: body },
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } finally {
      if (!body.destroyed) body.destroy();
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    const Key = this.keyOf(key);
    if (range && (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start)) {
      // Never satisfiable; S3 would ignore such a header and send the whole object.
      const info = await this.head(key);
      if (!info) return undefined;
      throw new RangeNotSatisfiableError(info.size);
    }
    let out;
    try {
      out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
    } catch (err) {
      if (isMissingObject(err)) return undefined;
      if (range && statusOf(err) === 416) {
        const info = await this.head(key);
        if (!info) return undefined;
        throw new RangeNotSatisfiableError(info.size);
      }
      throw err;
    }
    const stream = out.Body as Readable;
    if (!range) {
      const size = out.ContentLength ?? 0;
      return { stream, size, contentLength: size };
    }
    const served = parseContentRange(out.ContentRange);
    if (served) {
      if (served.start <= served.end && served.end < served.size) {
        return { stream, size: served.size, contentLength: served.end - served.start + 1, range: { start: served.start, end: served.end } };
      }
      // e.g. `bytes 0-0/0` from a store that "serves" a range of an empty object.
      stream.destroy();
      resolveRange(range, served.size);
      throw new Error(`Storage get ${key}: the store answered an impossible Content-Range ${JSON.stringify(out.ContentRange)}`);
    }
    // The store ignored the Range header and sent the whole object: cut the range out here.
    const size = out.ContentLength ?? 0;
    let r: ByteRange;
    try {
      r = resolveRange(range, size);
    } catch (err) {
      stream.destroy();
      throw err;
    }
    return { stream: pipeline(stream, new Slice(r.start, r.end), () => undefined), size, contentLength: r.end - r.start + 1, range: r };
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
      return { size: out.ContentLength ?? 0 };
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
    } catch (err) {
      // S3 answers 204 for a missing key; some compatible stores answer NoSuchKey.
      if (!isMissingObject(err)) throw err;
    }
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      // HeadBucket errors have no body, so the SDK names them after the status alone.
      const status = statusOf(err);
      throw new Error(
        `S3 bucket ${JSON.stringify(this.bucket)} is not reachable${status ? ` (HTTP ${status})` : ''}: ${(err as Error).message || (err as Error).name}`,
        {
          cause: err,
        },
      );
    }
  }

  /** Called by Nest when the app closes: frees the client's sockets. */
  onApplicationShutdown(): void {
    this.client.destroy();
  }
}

const nestLogger = new Logger('S3StorageDriver');
const sdkLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (...content: unknown[]) => nestLogger.warn(format(...content)),
  error: (...content: unknown[]) => nestLogger.error(format(...content)),
};

function normalisePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (!trimmed) return '';
  assertValidKey(trimmed);
  return `${trimmed}/`;
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

/** NoSuchKey, or a 404 that is not about the bucket (a missing bucket must never look like a missing object). */
function isMissingObject(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === 'NoSuchKey' || (statusOf(err) === 404 && err.name !== 'NoSuchBucket');
}

function parseContentRange(header: string | undefined): { start: number; end: number; size: number } | undefined {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header?.trim() ?? '');
  if (!m) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), size: Number(m[3]) };
}

/** A transform that knows where each chunk stands in the stream: `seen` counts the bytes so far, this chunk's included. */
abstract class CountingTransform extends Transform {
  protected seen = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    const offset = this.seen;
    this.seen += chunk.length;
    this.chunk(chunk, offset, cb);
  }
  /** Handles `chunk`, whose first byte is byte `offset` of the stream. */
  protected abstract chunk(chunk: Buffer, offset: number, cb: TransformCallback): void;
}

/** Passes a stream through, failing it when it does not hold exactly `size` bytes. */
class ExactLength extends CountingTransform {
  constructor(
    private readonly size: number,
    private readonly key: string,
  ) {
    super();
  }
  protected chunk(chunk: Buffer, _offset: number, cb: TransformCallback): void {
    if (this.seen > this.size) return cb(this.mismatch('more than'));
    cb(null, chunk);
  }
  override _flush(cb: TransformCallback): void {
    cb(this.seen === this.size ? null : this.mismatch(`only ${this.seen} of`));
  }
  private mismatch(what: string): Error {
    return new Error(`Storage put ${this.key}: the stream held ${what} the ${this.size} bytes announced`);
  }
}

/** Keeps bytes `first`..`last` (inclusive) of a stream. */
class Slice extends CountingTransform {
  constructor(
    private readonly first: number,
    private readonly last: number,
  ) {
    super();
  }
  protected chunk(chunk: Buffer, offset: number, cb: TransformCallback): void {
    const from = Math.max(this.first - offset, 0);
    const to = Math.min(this.last + 1 - offset, chunk.length);
    cb(null, from < to ? chunk.subarray(from, to) : undefined);
  }
}
