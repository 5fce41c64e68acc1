/**
 * Reading and hashing the files of a deploy in the browser, and base64 for the ones that
 * ride inline. Nothing here touches the page or the API, so it is unit-tested in Node
 * (which has File, Blob and WebCrypto too).
 */
import { sha256 as sha256Sync } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

import { INLINE_BYTES, INLINE_MAX_FILE, mapLimit } from './sdk';

export { mapLimit };

/** A file chosen in the browser, with its path in the site. */
export interface PickedFile {
  path: string;
  file: File;
}

export interface HashedFile extends PickedFile {
  sha256: string;
  size: number;
  /**
   * The bytes of a file small enough to ride inline, kept from hashing so it is not read
   * twice; only as many as one manifest can carry inline (a large site's small files
   * would otherwise all stay in memory). The others are read again if they are sent.
   */
  bytes?: ArrayBuffer;
}

/**
 * Small files read at a time. Chromium hands a File's bytes over from the browser process,
 * and waiting on that hand-over, not hashing, is most of the time: with 128 reads in flight,
 * 1,000 files of 4 KB read in about two thirds of the time 64 take (worker threads, or
 * FileReaderSync in them, were slower still). Their bytes are kept (they may ride inline),
 * so memory stays within 128 x 64 KB in flight.
 */
const SMALL_READS = 128;
/** Large files at a time: each is read whole into memory (WebCrypto has no streaming digest). */
const LARGE_READS = 2;

/**
 * SHA-256 (hex) of bytes in memory. WebCrypto digests off the main thread: with many
 * files in flight, 1,000 small ones take a few ms in all, where a synchronous digest
 * of each on the main thread took about 100 ms of it. A page served over plain http
 * from another host than localhost is not a secure context and has no `crypto.subtle`:
 * there the digest is @noble/hashes'.
 */
export async function sha256Hex(bytes: ArrayBuffer, subtle: SubtleCrypto | null = globalThis.crypto?.subtle ?? null): Promise<string> {
  return bytesToHex(subtle ? new Uint8Array(await subtle.digest('SHA-256', bytes)) : sha256Sync(new Uint8Array(bytes)));
}

/**
 * Hashes every file, many small ones at a time (see SMALL_READS), in the order given;
 * `onFile` after each, for progress. Small files keep their bytes up to `keepBytes` in all.
 * `subtle`: null hashes without WebCrypto.
 */
export async function hashFiles(
  files: PickedFile[],
  onFile: () => void,
  { keepBytes = INLINE_BYTES, subtle }: { keepBytes?: number; subtle?: SubtleCrypto | null } = {},
): Promise<HashedFile[]> {
  const results = new Array<HashedFile>(files.length);
  let kept = 0;
  const hashOne = async (i: number) => {
    const { path, file } = files[i];
    const bytes = await file.arrayBuffer();
    const sha256 = await sha256Hex(bytes, subtle);
    const keep = bytes.byteLength <= INLINE_MAX_FILE && kept + bytes.byteLength <= keepBytes;
    if (keep) kept += bytes.byteLength;
    onFile();
    results[i] = { path, file, sha256, size: bytes.byteLength, bytes: keep ? bytes : undefined };
  };
  const indices = files.map((_, i) => i);
  await Promise.all([
    mapLimit(
      indices.filter((i) => files[i].file.size <= INLINE_MAX_FILE),
      SMALL_READS,
      hashOne,
    ),
    mapLimit(
      indices.filter((i) => files[i].file.size > INLINE_MAX_FILE),
      LARGE_READS,
      hashOne,
    ),
  ]);
  return results;
}

/** Base64 of bytes in memory: the engine's own encoder where it has one (Uint8Array#toBase64), else in chunks (String.fromCharCode takes a bounded argument list). */
export function bytesToBase64(buffer: ArrayBuffer, native = true): string {
  const bytes = new Uint8Array(buffer);
  const toBase64 = native ? (bytes as Uint8Array & { toBase64?: () => string }).toBase64 : undefined;
  if (toBase64) return toBase64.call(bytes);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
