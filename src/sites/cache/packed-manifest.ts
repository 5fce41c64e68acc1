/** One file of a deployment as the router serves it (built on demand from a PackedManifest). */
export interface SiteFile {
  path: string;
  sha256: string;
  size: number;
  contentType: string;
  etag: string;
  /** Whether the router serves it compressed when it can (isCompressible), decided on first use. */
  compressible?: boolean;
  /** Where each representation's bytes are, by encoding: built on first use by the router. */
  bodies?: Partial<Record<string, StoredBody>>;
}

/** Where one representation of a file is: memory cache key, storage key, length. */
export interface StoredBody {
  cacheKey: string;
  storageKey: string;
  size: number;
}

/** What the router reads of a deployment's files (the few operations of a Map it uses). */
export interface SiteFiles {
  readonly size: number;
  has(path: string): boolean;
  get(path: string): SiteFile | undefined;
  values(): IterableIterator<SiteFile>;
}

export interface ManifestEntry {
  path: string;
  /** 64 lowercase hex digits. */
  sha256: string;
  size: number;
  contentType: string;
}

const HASH_BYTES = 32;
/**
 * Below this many files the tables are plain arrays and the hashes one hex string: each
 * typed array costs ~200 bytes of its own (its ArrayBuffer and backing-store record),
 * more than a small deployment's whole table (bench/manifest-bytes.ts).
 */
const SMALL = 64;
/** V8's fixed cost of the object and its arrays (headers, backing-store records), measured with bench/manifest-bytes.ts. */
const FIXED_BYTES_SMALL = 340;
const FIXED_BYTES_LARGE = 1100;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * A deployment's file table in a handful of flat arrays instead of a Map of objects:
 * the paths sorted and concatenated into one string (binary search by char code, no
 * allocation), the hashes as 32 raw bytes each, sizes and content-type indexes in typed
 * arrays. About 41 bytes a file plus its path, against ~330 for a Map entry with its
 * object and hex strings (docs/scaling.md has the measurements). A `SiteFile` object is
 * built only when the router asks for one, and the router memoises its answers.
 */
export class PackedManifest implements SiteFiles {
  readonly size: number;
  /** Estimated bytes this structure holds in memory (for the site cache's budget). */
  readonly bytes: number;

  private constructor(
    private readonly paths: string,
    /** `ends[i]` is where path i ends in `paths` (it starts where path i - 1 ends). */
    private readonly ends: ArrayLike<number>,
    /** 32 bytes a file; a string of 64 hex digits a file in a small manifest. */
    private readonly hashes: Buffer | string,
    private readonly sizes: ArrayLike<number>,
    private readonly types: ArrayLike<number>,
    private readonly typeNames: string[],
  ) {
    this.size = ends.length;
    const charBytes = /[^\u0000-\u00ff]/.test(paths) ? 2 : 1;
    const n = this.size;
    // Plain arrays: their elements and headers, ~24 bytes a file as measured; typed ones their byteLength.
    const tables = typeof hashes === 'string' ? hashes.length + 24 * n : hashes.byteLength + byteLength(ends) + byteLength(sizes) + byteLength(types);
    this.bytes = (typeof hashes === 'string' ? FIXED_BYTES_SMALL : FIXED_BYTES_LARGE) + paths.length * charBytes + tables + 8 * typeNames.length;
  }

  static from(entries: readonly ManifestEntry[]): PackedManifest {
    // Sorted by UTF-16 code units: the order `compare` below searches in.
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const n = sorted.length;
    const small = n < SMALL;
    const ends = small ? new Array<number>(n) : new Uint32Array(n);
    const hashes = small ? undefined : Buffer.alloc(n * HASH_BYTES);
    const large = sorted.some((e) => e.size > 0xffffffff);
    const sizes = small ? new Array<number>(n) : large ? new Float64Array(n) : new Uint32Array(n);
    const typeIndex = new Map<string, number>();
    const typeNames: string[] = [];
    const indexes: number[] = [];
    let offset = 0;
    for (let i = 0; i < n; i++) {
      const e = sorted[i];
      if (i > 0 && e.path === sorted[i - 1].path) throw new Error(`manifest lists ${e.path} twice`);
      if (!SHA256_HEX.test(e.sha256)) throw new Error(`manifest entry ${e.path} has no valid sha256`);
      offset += e.path.length;
      ends[i] = offset;
      hashes?.write(e.sha256, i * HASH_BYTES, HASH_BYTES, 'hex');
      sizes[i] = e.size;
      let t = typeIndex.get(e.contentType);
      if (t === undefined) {
        t = typeNames.length;
        typeNames.push(interned(e.contentType));
        typeIndex.set(e.contentType, t);
      }
      indexes.push(t);
    }
    if (typeNames.length > 65536) throw new Error('manifest has more than 65,536 content types');
    const types = small ? indexes.slice() : typeNames.length <= 256 ? Uint8Array.from(indexes) : Uint16Array.from(indexes);
    const hashTable = hashes ?? sorted.map((e) => e.sha256).join('');
    return new PackedManifest(sorted.map((e) => e.path).join(''), ends, hashTable, sizes, types, typeNames.slice());
  }

  has(path: string): boolean {
    return this.indexOf(path) !== -1;
  }

  get(path: string): SiteFile | undefined {
    const i = this.indexOf(path);
    return i === -1 ? undefined : this.fileAt(i, path);
  }

  *values(): IterableIterator<SiteFile> {
    for (let i = 0; i < this.size; i++) yield this.fileAt(i, this.pathAt(i));
  }

  private fileAt(i: number, path: string): SiteFile {
    const sha256 =
      typeof this.hashes === 'string'
        ? this.hashes.slice(i * 2 * HASH_BYTES, (i + 1) * 2 * HASH_BYTES)
        : this.hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES);
    return { path, sha256, size: this.sizes[i], contentType: this.typeNames[this.types[i]], etag: `"${sha256}"` };
  }

  private pathAt(i: number): string {
    return this.paths.slice(i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }

  private indexOf(path: string): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compare(path, mid);
      if (c === 0) return mid;
      if (c < 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return -1;
  }

  /** `path` against path i, by UTF-16 code unit, without slicing. */
  private compare(path: string, i: number): number {
    const start = i === 0 ? 0 : this.ends[i - 1];
    const length = this.ends[i] - start;
    const n = Math.min(path.length, length);
    for (let k = 0; k < n; k++) {
      const d = path.charCodeAt(k) - this.paths.charCodeAt(start + k);
      if (d !== 0) return d;
    }
    return path.length - length;
  }
}

/**
 * Content types, one copy each across every manifest (pg hands each row its own string).
 * Bounded: types are few in practice, but a deploy may name any.
 */
const TYPES = new Map<string, string>();
function interned(type: string): string {
  const known = TYPES.get(type);
  if (known !== undefined) return known;
  if (TYPES.size < 1000) TYPES.set(type, type);
  return type;
}

function byteLength(a: ArrayLike<number>): number {
  return (a as Uint8Array).byteLength ?? 4 * a.length;
}
