import fc from 'fast-check';

import { parseSingleRange, rangeAllowedBy } from './range';

describe('parseSingleRange', () => {
  const size = 1000;

  it.each<[string, number, number]>([
    ['bytes=0-99', 0, 99],
    ['bytes=-500', 500, 999],
    ['bytes=100-', 100, 999],
    ['bytes=999-999', 999, 999],
    ['bytes=0-', 0, 999],
    ['bytes=900-5000', 900, 999],
    ['bytes=-1000', 0, 999],
    ['bytes=-5000', 0, 999],
    ['bytes=0-5,-5000', 0, 999],
    ['bytes= 0 - 99 ', 0, 99],
    ['bytes=0-99,50-199', 0, 199],
    ['bytes=0-9,10-19', 0, 19],
    ['bytes=0-99,5000-6000', 0, 99],
  ])('%s is bytes %i-%i', (header, start, end) => {
    expect(parseSingleRange(header, size)).toEqual({ kind: 'range', start, end });
  });

  it.each([
    ['a start past the end', 'bytes=1000-'],
    ['a start far past the end', 'bytes=5000-6000'],
    ['an empty suffix', 'bytes=-0'],
    ['first-pos after last-pos', 'bytes=500-100'],
    ['several ranges, all past the end', 'bytes=2000-2100,3000-'],
  ])('%s is unsatisfiable', (_label, header) => {
    expect(parseSingleRange(header, size)).toEqual({ kind: 'unsatisfiable' });
  });

  it.each<[string, string | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['no "="', 'bytes'],
    ['a word', 'bytes=abc'],
    ['no dash', 'bytes=100'],
    ['a negative start', 'bytes=--5'],
    ['a fraction', 'bytes=0.5-1'],
    ['two dashes', 'bytes=1-2-3'],
    ['another unit', 'items=0-5'],
    ['an upper-case unit', 'BYTES=0-5'],
    ['two separate ranges', 'bytes=0-9,20-29'],
    ['a suffix and a prefix range', 'bytes=0-0,-1'],
  ])('%s is the whole file', (_label, header) => {
    expect(parseSingleRange(header, size)).toEqual({ kind: 'none' });
  });

  it('sends an empty file whole, whatever is asked', () => {
    for (const header of ['bytes=0-99', 'bytes=-500', 'bytes=100-', 'bytes=0-0', 'nonsense']) {
      expect(parseSingleRange(header, 0)).toEqual({ kind: 'none' });
    }
  });

  it('serves the one byte of a one-byte file', () => {
    expect(parseSingleRange('bytes=0-0', 1)).toEqual({ kind: 'range', start: 0, end: 0 });
    expect(parseSingleRange('bytes=-1', 1)).toEqual({ kind: 'range', start: 0, end: 0 });
    expect(parseSingleRange('bytes=1-', 1)).toEqual({ kind: 'unsatisfiable' });
  });

  it('property: a range is always inside the file', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.option(fc.nat(20_000), { nil: undefined }),
        fc.option(fc.nat(20_000), { nil: undefined }),
        (fileSize, first, last) => {
          const r = parseSingleRange(`bytes=${first ?? ''}-${last ?? ''}`, fileSize);
          if (r.kind !== 'range') return;
          expect(r.start).toBeGreaterThanOrEqual(0);
          expect(r.start).toBeLessThanOrEqual(r.end);
          expect(r.end).toBeLessThan(fileSize);
        },
      ),
    );
  });
});

describe('rangeAllowedBy (If-Range)', () => {
  const etag = '"abc123"';
  it('lets the range apply without If-Range, or when it is the strong ETag', () => {
    expect(rangeAllowedBy(undefined, etag)).toBe(true);
    expect(rangeAllowedBy('"abc123"', etag)).toBe(true);
    expect(rangeAllowedBy(' "abc123" ', etag)).toBe(true);
  });
  it('sends the whole file for another ETag, a weak one or a date', () => {
    expect(rangeAllowedBy('"other"', etag)).toBe(false);
    expect(rangeAllowedBy('W/"abc123"', etag)).toBe(false);
    expect(rangeAllowedBy('Wed, 21 Oct 2015 07:28:00 GMT', etag)).toBe(false);
  });
});
