import type { StoredEncoding } from '../shared/encoding';

/**
 * Where a blob and its compressed copies live in the storage provider. A module of their
 * own: BlobStore (which tells BlobVariants what it collected) and BlobVariants both need
 * them, and an import between those two would be a cycle.
 */

/** Object key of a blob: derived from its hash only, never from a user's path. */
export function blobKey(sha256: string): string {
  return `blobs/${sha256.slice(0, 2)}/${sha256}`;
}

/** Object key of a blob's compressed copy: beside the blob, derived from the hash only. */
export function variantKey(sha256: string, encoding: StoredEncoding): string {
  return `${blobKey(sha256)}.${encoding === 'br' ? 'br' : 'gz'}`;
}
