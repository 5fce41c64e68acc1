import { posix } from 'node:path';

import fc from 'fast-check';

import { itMapsEach } from '../common/cases.fixture';
import { thrownBy } from '../common/thrown.fixture';
import { InvalidPathError, MAX_PATH_BYTES, normaliseDeployPath, normaliseDeployPaths, RESERVED_PREFIX } from './file-path';

const reasonOf = (fn: () => unknown): string => thrownBy(InvalidPathError, fn).reason;

// Strings that mix path syntax, encodings and awkward Unicode, so the properties
// meet the interesting cases far more often than plain random text would.
const pathish = fc.string({
  unit: fc.oneof(
    fc.constantFrom('/', '.', '..', '\\', '%', '%2e', '%2F', '%252e', '%5c', 'C:', ':', 'a', 'b', 'é', 'e\u0301', '\u037e', '\u212b'),
    fc.constantFrom('\u0000', '\u001f', '\u007f', '\u0085', '\ud800', '\udc00', '.statichost', '.StaticHost/'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  ),
  maxLength: 12,
});
const anyString = fc.oneof(pathish, fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }));

describe('normaliseDeployPath', () => {
  itMapsEach('accepts %j as %j', normaliseDeployPath, [
    ['index.html', 'index.html'],
    ['assets/app.3f9a8c1b.js', 'assets/app.3f9a8c1b.js'],
    ['100%.html', '100%.html'],
    ['a%20b.html', 'a%20b.html'],
    ['.well-known/security.txt', '.well-known/security.txt'],
    ['..hidden', '..hidden'],
    ['a/...', 'a/...'],
    ['statichost/x', 'statichost/x'],
    ['x/.statichost/y', 'x/.statichost/y'],
    ['ab:c.html', 'ab:c.html'],
    ['caf\u0065\u0301.html', 'caf\u00e9.html'],
  ]);

  it('returns NFC, so an NFD upload is served at the NFC URL browsers send', () => {
    const nfd = 'Cafe\u0301/Ångström.html'.normalize('NFD');
    expect(nfd).not.toBe(nfd.normalize('NFC'));
    expect(normaliseDeployPath(nfd)).toBe('Café/Ångström.html'.normalize('NFC'));
  });

  it.each<[string, unknown, RegExp]>([
    ['a number', 42, /must be a string, got a number/],
    ['null', null, /must be a string, got null/],
    ['an array', ['a'], /must be a string, got an array/],
    ['an object', { path: 'a' }, /must be a string, got a object/],
    ['the empty string', '', /is empty/],
    ['an absolute path', '/etc/passwd', /is absolute/],
    ['"/" alone', '/', /is absolute/],
    ['a drive path', 'C:/Windows/win.ini', /Windows drive path/],
    ['a drive-relative path', 'c:boot.ini', /Windows drive path/],
    ['a backslash', 'a\\b.html', /backslash/],
    ['a UNC path', '\\\\server\\share', /backslash/],
    ['a backslash traversal', '..\\..\\x', /backslash/],
    ['an empty segment', 'a//b.html', /empty segment/],
    ['a trailing slash', 'dir/', /ends with "\/"/],
    ['a leading ".." segment', '../secret', /"\.\." segment/],
    ['a ".." segment inside', 'a/../../b', /"\.\." segment/],
    ['a ".." alone', '..', /"\.\." segment/],
    ['a "." segment', './index.html', /"\." segment/],
    ['a "." segment inside', 'a/./b', /"\." segment/],
    ['NUL', 'a\u0000.html', /control character \(U\+0000\)/],
    ['a newline', 'a\n.html', /control character \(U\+000A\)/],
    ['a tab', 'a\t.html', /control character \(U\+0009\)/],
    ['DEL', 'a\u007f', /control character \(U\+007F\)/],
    ['a C1 control', 'a\u0085', /control character \(U\+0085\)/],
    ['an unpaired surrogate', 'a\ud800.html', /unpaired surrogate/],
    ['%2e', '%2e%2e/secret', /percent-encoded .*"%2e"/],
    ['%2E', 'a/%2E%2E/b', /percent-encoded .*"%2E"/],
    ['%2f', 'a%2fb', /percent-encoded .*"%2f"/],
    ['%2F', 'a%2Fb', /percent-encoded .*"%2F"/],
    ['%5c', 'a%5cb', /percent-encoded .*"%5c"/],
    ['%5C', 'a%5Cb', /percent-encoded .*"%5C"/],
    ['double-encoded %252e', '%252e%252e/x', /percent-encoded .*"%252e"/],
    ['triple-encoded %25252f', 'a%25252fb', /percent-encoded .*"%25252f"/],
    ['the reserved prefix', `${RESERVED_PREFIX}login`, /reserved/],
    ['the reserved prefix in another case', '.StaticHost/login.html', /reserved/],
    ['the reserved name alone', '.statichost', /reserved/],
  ])('rejects %s', (_label, raw, reason) => {
    expect(reasonOf(() => normaliseDeployPath(raw))).toMatch(reason);
  });

  it('measures the length limit in UTF-8 bytes after NFC', () => {
    expect(normaliseDeployPath('a'.repeat(MAX_PATH_BYTES))).toHaveLength(MAX_PATH_BYTES);
    expect(reasonOf(() => normaliseDeployPath('a'.repeat(MAX_PATH_BYTES + 1)))).toMatch(/1025 bytes long; the limit is 1024/);
    // 512 two-byte characters fit exactly; one more does not.
    expect(() => normaliseDeployPath('é'.repeat(512))).not.toThrow();
    expect(reasonOf(() => normaliseDeployPath('é'.repeat(513)))).toMatch(/1026 bytes/);
    // 400 NFD "é" are 1200 bytes, but only 800 once composed.
    expect(normaliseDeployPath('e\u0301'.repeat(400))).toBe('é'.repeat(400));
  });

  it('quotes the path as JSON, so control characters are visible in the message', () => {
    expect(reasonOf(() => normaliseDeployPath('a\u0000b'))).toBe('path "a\\u0000b" contains a control character (U+0000)');
  });

  it('shortens a very long path in the message', () => {
    const reason = reasonOf(() => normaliseDeployPath('x'.repeat(100_000)));
    expect(reason.length).toBeLessThan(300);
  });

  describe('properties', () => {
    it('either throws InvalidPathError or returns a safe canonical path', () => {
      fc.assert(
        fc.property(anyString, (raw) => {
          let p: string;
          try {
            p = normaliseDeployPath(raw);
          } catch (e) {
            expect(e).toBeInstanceOf(InvalidPathError);
            return;
          }
          expect(p.normalize('NFC')).toBe(p);
          expect(p.length).toBeGreaterThan(0);
          expect(p.startsWith('/')).toBe(false);
          expect(p).not.toMatch(/[\\\u0000-\u001f\u007f-\u009f]/);
          expect(p).not.toMatch(/%(25)*(2e|2f|5c)/i);
          expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_PATH_BYTES);
          for (const segment of p.split('/')) expect(['', '.', '..']).not.toContain(segment);
          expect(p.toLowerCase().startsWith(RESERVED_PREFIX)).toBe(false);
          expect(normaliseDeployPath(p)).toBe(p);
          const root = '/srv/objects/site';
          expect(posix.join(root, p).startsWith(`${root}/`)).toBe(true);
        }),
        { numRuns: 5_000 },
      );
    });

    it('accepts every path built from safe segments, unchanged', () => {
      const segment = fc
        .string({ unit: fc.constantFrom('a', 'Z', '0', '-', '_', '.', '%', ' ', 'é', '😀'), minLength: 1, maxLength: 8 })
        .filter((s) => s !== '.' && s !== '..');
      fc.assert(
        fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
          const p = segments.join('/');
          fc.pre(!/%(25)*(2e|2f|5c)/i.test(p) && !/^\.statichost$/i.test(segments[0]));
          expect(normaliseDeployPath(p)).toBe(p);
        }),
      );
    });
  });
});

describe('normaliseDeployPaths', () => {
  it('normalises every entry, in order', () => {
    expect(normaliseDeployPaths(['index.html', 'e\u0301.css', 'a/b.js'])).toEqual(['index.html', 'é.css', 'a/b.js']);
  });

  it('accepts an empty list (the caller decides whether that is allowed)', () => {
    expect(normaliseDeployPaths([])).toEqual([]);
  });

  it('names the offending entry and quotes its path', () => {
    expect(reasonOf(() => normaliseDeployPaths(['index.html', 'ok.css', '../etc/passwd']))).toBe('files[2].path "../etc/passwd" has a ".." segment');
  });

  it('names a non-string entry', () => {
    expect(reasonOf(() => normaliseDeployPaths(['index.html', 7]))).toBe('files[1].path must be a string, got a number');
  });

  it('refuses an exact duplicate, naming both entries', () => {
    expect(reasonOf(() => normaliseDeployPaths(['index.html', 'a/b.html', 'c.css', 'a/b.html']))).toBe('files[3].path "a/b.html" duplicates files[1].path');
  });

  it('refuses two entries that differ only before NFC normalisation', () => {
    const reason = reasonOf(() => normaliseDeployPaths(['caf\u00e9.html', 'cafe\u0301.html']));
    expect(reason).toMatch(/^files\[1\]\.path ".*" duplicates files\[0\]\.path \(both are "café\.html" after normalisation\)$/);
  });

  it('keeps paths that differ only in case apart (they are different URLs)', () => {
    expect(normaliseDeployPaths(['A.html', 'a.html'])).toEqual(['A.html', 'a.html']);
  });

  it('property: the result has no duplicates and each entry is what normaliseDeployPath gives', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b/c', 'e\u0301', 'é', './x', 'd/'), { maxLength: 6 }), (paths) => {
        let out: string[];
        try {
          out = normaliseDeployPaths(paths);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidPathError);
          expect((e as InvalidPathError).reason).toMatch(/^files\[\d+\]\.path /);
          return;
        }
        expect(new Set(out).size).toBe(out.length);
        expect(out).toEqual(paths.map((p) => normaliseDeployPath(p)));
      }),
    );
  });
});
