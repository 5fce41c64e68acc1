import type { Readable } from 'node:stream';

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface StoredObject {
  stream: Readable;
  /** Size of the whole object. */
  size: number;
  /** Bytes in `stream` (the range's length when a range was asked for). */
  contentLength: number;
  range?: ByteRange;
}

export interface ObjectInfo {
  size: number;
}

/**
 * Where file bytes live. Keys are chosen by the service (derived from content
 * hashes), never by users. Implementations must make `put` atomic: a reader sees
 * the whole object or none of it.
 */
export abstract class StorageProvider {
  abstract readonly name: string;
  abstract put(key: string, body: Buffer | Readable, size?: number): Promise<void>;
  /** Undefined when the key does not exist. */
  abstract get(key: string, range?: ByteRange): Promise<StoredObject | undefined>;
  abstract head(key: string): Promise<ObjectInfo | undefined>;
  abstract delete(key: string): Promise<void>;
  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }
  /** Throws when the store cannot be reached (used by /health). */
  abstract check(): Promise<void>;
}

export class RangeNotSatisfiableError extends Error {
  constructor(readonly size: number) {
    super(`Range not satisfiable for an object of ${size} bytes`);
  }
}

const KEY = /^[a-z0-9][a-z0-9/_.-]{0,511}$/;

export function assertValidKey(key: string): void {
  if (!KEY.test(key) || key.includes('..') || key.includes('//')) {
    throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
  }
}

/** Clamps a requested range to an object's size, or throws when it cannot be served. */
export function resolveRange(range: ByteRange, size: number): ByteRange {
  if (range.start < 0 || range.start >= size || range.end < range.start) throw new RangeNotSatisfiableError(size);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
