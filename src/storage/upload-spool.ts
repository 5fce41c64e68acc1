import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Where large uploads are spooled: `$DATA_DIR/uploads` (a crash leaves `.part` files, see TempFileSweeper). */
export function uploadSpoolDir(dataDir: string): string {
  return join(dataDir, 'uploads');
}

export class UploadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`upload exceeds ${limit} bytes`);
    this.name = 'UploadTooLargeError';
  }
}

/** An upload read to its end, hashed on the way, and kept until it is stored. */
export interface SpooledUpload {
  sha256: string;
  size: number;
  /** The bytes again: from memory for small uploads, from the spool file for large ones. */
  open(): Buffer | Readable;
  dispose(): Promise<void>;
}

export interface SpoolOptions {
  /** Larger uploads fail with UploadTooLargeError as soon as the excess byte arrives. */
  maxBytes: number;
  /** Where large uploads are spooled. */
  dir: string;
  /** Uploads up to this size stay in memory. */
  memoryBytes?: number;
}

/**
 * Reads an upload to its end, hashing and counting as it streams. Nothing can be
 * stored under the claimed hash before the whole body is known to match it, so
 * the bytes wait here: in memory when small, in a private temp file otherwise,
 * never more than `memoryBytes` in memory either way.
 */
export async function spoolUpload(source: AsyncIterable<Buffer | string>, options: SpoolOptions): Promise<SpooledUpload> {
  const memoryBytes = options.memoryBytes ?? 1024 * 1024;
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  let file: { path: string; stream: WriteStream } | undefined;
  const dispose = async () => {
    if (!file) return;
    // The file is opened asynchronously: removing it before the stream has closed could
    // run before the open, which would then create it again and leave it behind.
    const closed = file.stream.closed
      ? Promise.resolve()
      : once(file.stream, 'close').then(
          () => undefined,
          () => undefined,
        );
    file.stream.destroy();
    await closed;
    await rm(file.path, { force: true });
  };
  try {
    for await (const piece of source) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
      size += chunk.length;
      if (size > options.maxBytes) throw new UploadTooLargeError(options.maxBytes);
      hash.update(chunk);
      if (!file && size <= memoryBytes) {
        chunks.push(chunk);
        continue;
      }
      if (!file) {
        await mkdir(options.dir, { recursive: true, mode: 0o700 });
        const path = join(options.dir, `${randomBytes(12).toString('hex')}.part`);
        file = { path, stream: createWriteStream(path, { flags: 'wx', mode: 0o600 }) };
        for (const earlier of chunks.splice(0)) file.stream.write(earlier);
      }
      if (!file.stream.write(chunk)) await once(file.stream, 'drain');
    }
    if (file) {
      file.stream.end();
      await finished(file.stream);
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  const path = file?.path;
  const inMemory = path ? undefined : Buffer.concat(chunks, size);
  return {
    sha256: hash.digest('hex'),
    size,
    open: () => (path ? createReadStream(path) : inMemory!),
    dispose,
  };
}
