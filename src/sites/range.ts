import rangeParser from 'range-parser';

export type SingleRange = { kind: 'none' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * What to do with a request's Range header for a file of `size` bytes:
 * `range` → 206 with bytes start..end (inclusive), `unsatisfiable` → 416,
 * `none` → the whole file with 200.
 *
 * Only single byte ranges are served. Ranges that overlap or touch are merged
 * first (RFC 9110 lets a server coalesce them), so "bytes=0-99,50-199" is one
 * range; anything still made of several parts is answered with the whole file,
 * which the RFC allows and which spares us multipart/byteranges. A malformed
 * header or another unit is ignored (`none`), as the RFC requires. An empty file
 * is always sent whole: no byte range of it exists, and a 416 for it would only
 * break clients that always ask for ranges (media players, download managers).
 */
export function parseSingleRange(header: string | undefined, size: number): SingleRange {
  if (!header || size <= 0) return { kind: 'none' };
  const ranges = rangeParser(size, clampSuffixes(header, size), { combine: true });
  if (ranges === -2) return { kind: 'none' };
  if (ranges === -1) return { kind: 'unsatisfiable' };
  if (ranges.type !== 'bytes' || ranges.length !== 1) return { kind: 'none' };
  return { kind: 'range', start: ranges[0].start, end: ranges[0].end };
}

/**
 * RFC 9110 §14.1.3: a suffix longer than the file means the whole file, but
 * range-parser 1.3 calls it unsatisfiable (its start comes out negative).
 */
function clampSuffixes(header: string, size: number): string {
  const eq = header.indexOf('=');
  if (eq === -1) return header;
  const specs = header
    .slice(eq + 1)
    .split(',')
    .map((spec) => {
      const suffix = /^\s*-\s*(\d+)\s*$/.exec(spec);
      return suffix && Number(suffix[1]) > size ? `-${size}` : spec;
    });
  return `${header.slice(0, eq + 1)}${specs.join(',')}`;
}

/**
 * Whether a Range applies given the request's If-Range (RFC 9110 §13.1.5): only when the
 * validator is the file's own strong ETag. A weak one never matches, and a date never
 * does here (answers carry no Last-Modified), so the client gets the whole file rather
 * than bytes of another version spliced onto the part it holds.
 */
export function rangeAllowedBy(ifRange: string | undefined, etag: string): boolean {
  return ifRange === undefined || ifRange.trim() === etag;
}
