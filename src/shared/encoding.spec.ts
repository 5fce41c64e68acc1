import fc from 'fast-check';

import { chooseEncoding, etagFor, isCompressible, matchesIfNoneMatch, notModifiedEtag } from './encoding';

describe('chooseEncoding', () => {
  const both = ['br', 'gzip'] as const;
  it.each([
    [undefined, both, 'identity'],
    ['', both, 'identity'],
    ['gzip, deflate, br, zstd', both, 'br'],
    ['gzip, br', both, 'br'],
    ['br;q=0.5, gzip', both, 'gzip'],
    ['gzip', both, 'gzip'],
    ['gzip', ['br'], 'identity'],
    ['br', [], 'identity'],
    ['deflate', both, 'identity'],
    ['GZIP', both, 'gzip'],
    ['*', both, 'br'],
    ['gzip;q=0, *', both, 'br'],
    ['br;q=0, *;q=0.5', both, 'gzip'],
    ['gzip;q=0.8, identity;q=0.9', both, 'identity'],
    ['identity;q=0', both, null],
    ['identity;q=0, gzip', both, 'gzip'],
    ['identity;q=0, gzip', ['br'], null],
    ['*;q=0', both, null],
    ['*;q=0, identity', both, 'identity'],
    ['*;q=0, br', both, 'br'],
    ['br;q=0, gzip;q=0', both, 'identity'],
    ['br;q=0, gzip;q=0, identity;q=0', both, null],
    ['gzip;q=abc', both, 'identity'],
  ] as const)('%j with %j → %j', (header, available, expected) => {
    expect(chooseEncoding(header, available)).toBe(expected);
  });

  it('only ever picks identity or an available encoding', () => {
    const token = fc.constantFrom('br', 'gzip', 'identity', '*', 'deflate', 'zstd');
    const q = fc.constantFrom('', ';q=0', ';q=0.5', ';q=1', ';q=0.001');
    const header = fc
      .array(
        fc.tuple(token, q).map(([t, w]) => t + w),
        { maxLength: 5 },
      )
      .map((a) => a.join(', '));
    const available = fc.subarray(['br', 'gzip'] as const);
    fc.assert(
      fc.property(header, available, (h, av) => {
        const chosen = chooseEncoding(h, av);
        if (chosen !== null && chosen !== 'identity') expect(av).toContain(chosen);
        // Without any q=0 nothing is refused, so there is always an answer.
        if (!h.includes('q=0,') && !h.endsWith('q=0')) expect(chosen).not.toBeNull();
      }),
    );
  });
});

describe('isCompressible', () => {
  it.each([
    ['text/html; charset=utf-8', true],
    ['text/css', true],
    ['text/plain', true],
    ['text/javascript; charset=utf-8', true],
    ['application/javascript', true],
    ['application/json', true],
    ['application/manifest+json', true],
    ['application/ld+json', true],
    ['image/svg+xml', true],
    ['application/xml', true],
    ['application/rss+xml', true],
    ['application/wasm', true],
    ['font/ttf', true],
    ['font/otf', true],
    ['image/x-icon', true],
    ['image/vnd.microsoft.icon', true],
    ['text/x-unknown-thing', true],
    ['image/png', false],
    ['image/jpeg', false],
    ['font/woff2', false],
    ['application/zip', false],
    ['application/pdf', false],
    ['video/mp4', false],
    ['application/octet-stream', false],
    ['', false],
  ])('%s → %s', (type, expected) => {
    expect(isCompressible(type, 10_000)).toBe(expected);
  });

  it('skips files of 1 KB or less', () => {
    expect(isCompressible('text/html', 1024)).toBe(false);
    expect(isCompressible('text/html', 1025)).toBe(true);
  });
});

describe('ETags per encoding', () => {
  const base = '"3f9a"';
  it('gives each encoding its own tag', () => {
    expect(etagFor(base, 'identity')).toBe('"3f9a"');
    expect(etagFor(base, 'br')).toBe('"3f9a-br"');
    expect(etagFor(base, 'gzip')).toBe('"3f9a-gzip"');
    expect(etagFor('W/"x"', 'gzip')).toBe('W/"x-gzip"');
  });

  it('matchesIfNoneMatch accepts any encoding of the file, weak or strong, in a list, or "*"', () => {
    expect(matchesIfNoneMatch('"3f9a"', base)).toBe(true);
    expect(matchesIfNoneMatch('"3f9a-gzip"', base)).toBe(true);
    expect(matchesIfNoneMatch('W/"3f9a-br"', base)).toBe(true);
    expect(matchesIfNoneMatch('"other", "3f9a-br"', base)).toBe(true);
    expect(matchesIfNoneMatch('*', base)).toBe(true);
    expect(matchesIfNoneMatch('"3f9a-deflate"', base)).toBe(false);
    expect(matchesIfNoneMatch('"3f9"', base)).toBe(false);
    expect(matchesIfNoneMatch('"other"', base)).toBe(false);
    expect(matchesIfNoneMatch('', base)).toBe(false);
    expect(matchesIfNoneMatch(undefined, base)).toBe(false);
  });

  it('notModifiedEtag names the chosen encoding when listed, else the copy the client holds', () => {
    expect(notModifiedEtag('"3f9a-br", "3f9a-gzip"', base, 'gzip')).toBe('"3f9a-gzip"');
    expect(notModifiedEtag('"3f9a-gzip"', base, 'br')).toBe('"3f9a-gzip"');
    expect(notModifiedEtag('*', base, 'br')).toBe('"3f9a-br"');
    expect(notModifiedEtag('"nope"', base, 'br')).toBeUndefined();
  });
});
