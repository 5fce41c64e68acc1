/**
 * A deploy's `files[i]` is either inline (`content`, optional `encoding`) or
 * digest-only (`sha256` and `size` of a blob uploaded with PUT /v1/blobs). The
 * DTO lets every field through so that this check can name the entry it refuses.
 */

export class InvalidFileEntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidFileEntryError';
  }
}

export type FileEntry = { kind: 'inline' } | { kind: 'digest'; sha256: string; size: number };

const SHA256_HEX = /^[0-9a-f]{64}$/i;

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 70 ? `${value.slice(0, 70)}…` : value);
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  return Array.isArray(value) ? 'an array' : typeof value === 'number' ? String(value) : `a ${typeof value}`;
}

const FIELDS = new Set(['path', 'content', 'encoding', 'sha256', 'size']);

/**
 * `files[index]` is an object with known fields only. Checked here rather than by
 * nested class-validator DTOs: a 1,000-file deploy then costs one pass, and the
 * message names the entry.
 */
export function assertFileObject(file: unknown, index: number): asserts file is Record<string, unknown> {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) {
    throw new InvalidFileEntryError(`files[${index}] must be an object with path and content (or sha256 and size), got ${shown(file)}`);
  }
  for (const key of Object.keys(file)) {
    if (!FIELDS.has(key)) throw new InvalidFileEntryError(`files[${index}].${key} is not a file field (expected path, content, encoding, sha256, size)`);
  }
}

/** Which kind `files[index]` is; throws naming the entry when it is neither, or both. */
export function describeFileEntry(file: { content?: unknown; encoding?: unknown; sha256?: unknown; size?: unknown }, index: number): FileEntry {
  const at = `files[${index}]`;
  const digest = file.sha256 !== undefined || file.size !== undefined;
  if (!digest) {
    if (file.content === undefined) {
      throw new InvalidFileEntryError(`${at} needs either content (inline) or sha256 and size (a blob uploaded with PUT /v1/blobs/:sha256)`);
    }
    return { kind: 'inline' };
  }
  if (file.content !== undefined) throw new InvalidFileEntryError(`${at} has both content and sha256/size: send one or the other`);
  if (file.encoding !== undefined && file.encoding !== null) throw new InvalidFileEntryError(`${at}.encoding applies to content only, not to a sha256 entry`);
  if (typeof file.sha256 !== 'string' || !SHA256_HEX.test(file.sha256)) {
    throw new InvalidFileEntryError(`${at}.sha256 must be 64 hexadecimal characters (the SHA-256 of the file), got ${shown(file.sha256)}`);
  }
  if (typeof file.size !== 'number' || !Number.isSafeInteger(file.size) || file.size < 0) {
    throw new InvalidFileEntryError(`${at}.size must be the file's size in bytes (an integer, 0 or more), got ${shown(file.size)}`);
  }
  return { kind: 'digest', sha256: file.sha256.toLowerCase(), size: file.size };
}
