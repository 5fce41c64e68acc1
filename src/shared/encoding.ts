/**
 * Compressed answers: which stored encoding to send, which files are worth
 * compressing, and ETags that stay distinct per encoding.
 *
 * Follows RFC 9110 §12.5.3 (Accept-Encoding) through `negotiator`, the jshttp
 * library Express uses: q-values, `*`, and `identity;q=0` / `*;q=0` refusing the
 * uncompressed form are all honoured. Among equal q-values we prefer br, then
 * gzip, then identity, as Cloudflare Pages and Netlify do ("serve Brotli and Gzip
 * whenever possible"). Where we differ: a request without Accept-Encoding gets
 * identity (the RFC allows any coding; old clients and tools that send nothing
 * expect plain bytes), and when nothing is acceptable we say so (null → 406)
 * rather than sending identity anyway.
 */
import compressible from 'compressible';
import Negotiator from 'negotiator';

export type Encoding = 'br' | 'gzip' | 'identity';
export type StoredEncoding = Exclude<Encoding, 'identity'>;

const PREFERRED: readonly Encoding[] = ['br', 'gzip', 'identity'];

/** Files this small gain nothing worth a second stored copy and a Vary header. */
export const MIN_COMPRESSIBLE_BYTES = 1024;

/**
 * The encoding to answer with, given the request's Accept-Encoding and the
 * compressed copies the file has; null when the client refuses identity and
 * accepts none of them (answer 406).
 */
export function chooseEncoding(acceptEncoding: string | undefined, available: readonly StoredEncoding[]): Encoding | null {
  if (acceptEncoding === undefined) return 'identity';
  const offered = PREFERRED.filter((e) => e === 'identity' || available.includes(e));
  const accepted = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encodings(offered, { preferred: PREFERRED });
  return (accepted[0] as Encoding | undefined) ?? null;
}

/**
 * Whether a file is worth storing compressed: text, JavaScript, JSON, XML, SVG,
 * WebAssembly, TrueType/OpenType fonts, icons… (the `compressible` flags of
 * mime-db, plus any text/*, +json, +xml), and more than 1 KB. Formats that are
 * already compressed (PNG, JPEG, WOFF2, zip…) are not.
 */
export function isCompressible(contentType: string, size: number): boolean {
  if (!(size > MIN_COMPRESSIBLE_BYTES)) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  // mime-db marks octet-stream compressible, but here it means "unknown extension",
  // which is as likely an archive or a video as anything else.
  if (type === 'application/octet-stream') return false;
  return compressible(type) === true;
}

/**
 * The ETag of one encoding of a file: the base (identity) ETag for identity,
 * `"<base>-br"` / `"<base>-gzip"` otherwise. Distinct tags keep caches from
 * taking a gzip body for the identity one (RFC 9110 §8.8.3: an ETag names one
 * representation, and each encoding is a different one).
 */
export function etagFor(baseEtag: string, encoding: Encoding): string {
  if (encoding === 'identity') return baseEtag;
  const weak = baseEtag.startsWith('W/');
  const opaque = weak ? baseEtag.slice(2) : baseEtag;
  const inner = opaque.startsWith('"') && opaque.endsWith('"') && opaque.length >= 2 ? opaque.slice(1, -1) : opaque;
  return `${weak ? 'W/' : ''}"${inner}-${encoding}"`;
}

/** Entity tags of an If-None-Match value, without their W/ (weak comparison, RFC 9110 §13.1.2). */
function listedTags(header: string): string[] {
  return Array.from(header.matchAll(/(?:W\/)?("[^"]*")/g), (m) => m[1]);
}

function strip(etag: string): string {
  return etag.startsWith('W/') ? etag.slice(2) : etag;
}

/**
 * Whether If-None-Match names this file in any of its encodings (or is "*"):
 * a cache that holds the gzip copy revalidates with the gzip ETag, and the
 * content behind every encoding changes together.
 */
export function matchesIfNoneMatch(header: string | undefined, baseEtag: string): boolean {
  return notModifiedEtag(header, baseEtag, 'identity') !== undefined;
}

/**
 * The ETag a 304 should carry, or undefined when the full answer is due. It is
 * the chosen encoding's ETag when the client listed it (or sent "*"); otherwise
 * the first listed encoding of the same file, so a cache refreshes the copy it
 * actually holds (RFC 9111 §4.3.4 selects stored responses by that ETag).
 */
export function notModifiedEtag(header: string | undefined, baseEtag: string, chosen: Encoding): string | undefined {
  if (!header) return undefined;
  if (header.trim() === '*') return etagFor(baseEtag, chosen);
  const listed = listedTags(header);
  const chosenTag = etagFor(baseEtag, chosen);
  if (listed.includes(strip(chosenTag))) return chosenTag;
  for (const tag of listed) {
    for (const encoding of PREFERRED) {
      const candidate = etagFor(baseEtag, encoding);
      if (tag === strip(candidate)) return candidate;
    }
  }
  return undefined;
}
