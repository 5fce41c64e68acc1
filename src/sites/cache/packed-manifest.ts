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
/** V8's fixed cost of the object and its typed arrays (headers, backing-store records), measured roughly. */
const FIXED_BYTES = 400;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * A deployment's file table in a handful of flat arrays instead of a Map of objects:
 * the paths sorted and concatenated into one string (binary search by char code, no
 * allocation), the hashes as 32 raw bytes each, sizes and content-type indexes in typed
 * arrays. About 45 bytes a file plus its path, against ~370 for a Map entry with its
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
    private readonly ends: Uint32Array,
    private readonly hashes: Buffer,
    private readonly sizes: Uint32Array | Float64Array,
    private readonly types: Uint8Array | Uint16Array,
    private readonly typeNames: string[],
  ) {
    this.size = ends.length;
    const charBytes = /[^\u0000-\u00ff]/.test(paths) ? 2 : 1;
    this.bytes =
      FIXED_BYTES +
      paths.length * charBytes +
      ends.byteLength +
      hashes.byteLength +
      sizes.byteLength +
      types.byteLength +
      typeNames.reduce((sum, t) => sum + 32 + t.length, 0);
  }

  static from(entries: readonly ManifestEntry[]): PackedManifest {
    // Sorted by UTF-16 code units: the order `compare` below searches in.
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const n = sorted.length;
    const ends = new Uint32Array(n);
    const hashes = Buffer.alloc(n * HASH_BYTES);
    const large = sorted.some((e) => e.size > 0xffffffff);
    const sizes = large ? new Float64Array(n) : new Uint32Array(n);
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
      hashes.write(e.sha256, i * HASH_BYTES, HASH_BYTES, 'hex');
      sizes[i] = e.size;
      let t = typeIndex.get(e.contentType);
      if (t === undefined) {
        t = typeNames.length;
        typeNames.push(e.contentType);
        typeIndex.set(e.contentType, t);
      }
      indexes.push(t);
    }
    if (typeNames.length > 65536) throw new Error('manifest has more than 65,536 content types');
    const types = typeNames.length <= 256 ? Uint8Array.from(indexes) : Uint16Array.from(indexes);
    return new PackedManifest(sorted.map((e) => e.path).join(''), ends, hashes, sizes, types, typeNames);
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
    const sha256 = this.hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES);
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
