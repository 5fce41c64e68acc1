import { posix } from 'node:path';

import fc from 'fast-check';

import { itMapsEach } from '../../common/cases.fixture';
import { normaliseDeployPath } from '../../deployments/file-path';
import { candidatePaths, isHashedAssetPath, parseRequestPath } from './request-path';

describe('parseRequestPath', () => {
  itMapsEach('%j → %j', parseRequestPath, [
    ['/', ''],
    ['/?x=1', ''],
    ['/index.html', 'index.html'],
    ['/a/b%20c.html?x=1', 'a/b c.html'],
    ['/dir/', 'dir/'],
    ['/dir/sub/', 'dir/sub/'],
    ['/about#team', 'about'],
    ['/a+b.html', 'a+b.html'],
    ['/100%25.html', '100%.html'],
    ['/%252e%252e/x', '%2e%2e/x'],
    ['/caf%C3%A9.html', 'café.html'],
    ['/cafe%CC%81.html', 'café.html'],
    ['/caf\u00e9.html', 'café.html'],
    ['/..hidden/...', '..hidden/...'],
    ['/.well-known/security.txt', '.well-known/security.txt'],
    ['/a/b.html?next=/../../etc/passwd', 'a/b.html'],
  ]);

  it('normalises to NFC, the form deploy paths are stored in', () => {
    expect(parseRequestPath('/cafe%CC%81.html')).toBe('caf\u00e9.html');
  });

  it.each([
    ['a relative target', 'index.html'],
    ['an absolute-form target', 'http://evil.example/index.html'],
    ['an asterisk', '*'],
    ['the empty string', ''],
    ['".."', '/../etc/passwd'],
    ['".." inside', '/a/../../b'],
    ['".." at the end', '/a/..'],
    ['"."', '/./index.html'],
    ['%2e%2e', '/%2e%2e/secret'],
    ['%2E%2E', '/a/%2E%2E/%2E%2E/b'],
    ['.%2e', '/.%2e/secret'],
    ['%2e alone', '/a/%2e/b'],
    ['an encoded slash', '/a%2Fb.html'],
    ['an encoded slash in lower case', '/..%2f..%2fetc%2fpasswd'],
    ['a backslash', '/a\\b'],
    ['an encoded backslash', '/..%5c..%5cwin.ini'],
    ['an encoded NUL', '/index.html%00.png'],
    ['a raw NUL', '/a\u0000b'],
    ['an encoded newline', '/a%0Ab'],
    ['an encoded C1 control', '/a%C2%85b'],
    ['an encoded DEL', '/a%7Fb'],
    ['an empty segment', '/a//b'],
    ['a leading double slash', '//evil.example/x'],
    ['a malformed escape', '/100%.html'],
    ['a truncated escape', '/a%2'],
    ['an escape that is not UTF-8', '/caf%E9.html'],
    ['an encoded surrogate', '/%ED%A0%80'],
    ['overlong UTF-8 for "."', '/%C0%AE%C0%AE/x'],
    ['a raw unpaired surrogate', '/a\ud800'],
  ])('refuses %s', (_label, url) => {
    expect(parseRequestPath(url)).toBeNull();
  });

  describe('properties', () => {
    const traversalish = fc.string({
      unit: fc.oneof(
        fc.constantFrom('/', '.', '..', '%2e', '%2E', '%2f', '%5c', '%25', '%', '\\', '?', '#', 'a', 'é', '%00', '%C0%AE'),
        fc.string({ unit: 'binary', maxLength: 2 }),
      ),
      maxLength: 16,
    });
    // Raw, per-segment encoded, fully encoded (slashes too) and double-encoded.
    const variants = (s: string): string[] => [s, s.split('/').map(encodeOrSelf).join('/'), encodeOrSelf(s), encodeOrSelf(encodeOrSelf(s))];

    it('never yields a path that escapes the root, whatever the encoding', () => {
      fc.assert(
        fc.property(traversalish, (s) => {
          for (const url of variants(s)) {
            const p = parseRequestPath(`/${url}`);
            if (p === null) continue;
            expect(p.startsWith('/')).toBe(false);
            const segments = p.split('/');
            expect(segments).not.toContain('..');
            expect(segments).not.toContain('.');
            expect(segments.slice(0, -1)).not.toContain('');
            expect(p).not.toMatch(/[\\\u0000-\u001f\u007f-\u009f]/);
            const root = '/srv/site';
            expect(`${posix.join(root, p)}/`.startsWith(`${root}/`)).toBe(true);
            expect(p.normalize('NFC')).toBe(p);
          }
        }),
        { numRuns: 3_000 },
      );
    });

    const deployPath = fc
      .oneof(
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.string({ unit: fc.constantFrom('a', '/', '.', '%', '?', '#', ' ', '+', 'é', 'e\u0301', '😀', ':'), maxLength: 20 }),
      )
      .map((s) => {
        try {
          return normaliseDeployPath(s);
        } catch {
          return null;
        }
      })
      .filter((p): p is string => p !== null);

    it('finds every valid deploy path at its per-segment encoded URL', () => {
      fc.assert(
        fc.property(deployPath, fc.constantFrom('', '?v=1', '#top'), (p, suffix) => {
          expect(parseRequestPath(`/${p.split('/').map(encodeURIComponent).join('/')}${suffix}`)).toBe(p);
        }),
        { numRuns: 3_000 },
      );
    });

    it('finds every valid deploy path at the URL a browser builds for it', () => {
      fc.assert(
        fc.property(
          // A URL parser trims trailing spaces, and reads %, ? and # as syntax.
          deployPath.filter((p) => !/[%?#]|[ ]$/.test(p)),
          (p) => {
            const url = new URL(`http://site.example/${p}`);
            expect(parseRequestPath(url.pathname + url.search)).toBe(p);
          },
        ),
        { numRuns: 3_000 },
      );
    });
  });
});

function encodeOrSelf(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
}

describe('candidatePaths', () => {
  it.each<[string, string[]]>([
    ['', ['index.html']],
    ['dir/', ['dir/index.html']],
    ['a/b/', ['a/b/index.html']],
    ['about', ['about', 'about.html', 'about/index.html']],
    ['blog/post-1', ['blog/post-1', 'blog/post-1.html', 'blog/post-1/index.html']],
    ['docs/v1.2', ['docs/v1.2', 'docs/v1.2.html', 'docs/v1.2/index.html']],
    ['a.html', ['a.html']],
    ['old/page.htm', ['old/page.htm']],
    ['UPPER.HTML', ['UPPER.HTML']],
    ['style.css', ['style.css', 'style.css.html', 'style.css/index.html']],
  ])('%j → %j', (path, candidates) => {
    expect(candidatePaths(path)).toEqual(candidates);
  });

  it('every candidate of a parsed path is itself a valid deploy path', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '/', '.', 'x.html', '%2e', 'é'), maxLength: 10 }), (s) => {
        const p = parseRequestPath(`/${s}`);
        if (p === null) return;
        for (const c of candidatePaths(p)) expect(normaliseDeployPath(c)).toBe(c);
      }),
    );
  });
});

describe('isHashedAssetPath', () => {
  it.each([
    'app.3f9a8c1b.js',
    'assets/main-5d41402abc4b2a76.css',
    'static/js/787.8c1e2f3a.chunk.js',
    'static/js/main.3f9a8c1b.js.map',
    'assets/index-BfXk2Q9a.js',
    'assets/vendor-a1B2c3D4e5.js',
    'main.a1b2c3d4e5f6a7b8c9d0.js',
    'css/main.min.5e0f7f0b8a2b1c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1.css',
    'img/logo.9b2c4d1e.svg',
    '.cache/.app.3f9a8c1b.js',
  ])('%s carries a hash', (path) => {
    expect(isHashedAssetPath(path)).toBe(true);
  });

  it.each([
    ['no hash', 'app.js'],
    ['a version number', 'jquery-3.7.1.min.js'],
    ['a date', 'photo-20240101.jpg'],
    ['a word followed by a year', 'menu-cafe2024.pdf'],
    ['a hex word without digits', 'logo-deadbeef.png'],
    ['a resolution', 'banner-1920x1080.jpg'],
    ['a camera file name', 'holiday-DSC01234.jpg'],
    ['a camera file name with underscores', 'IMG_20240101_123456.jpg'],
    ['a product name', 'case-study-iPhone12Pro.png'],
    ['a hash as the whole name', '3f9a8c1b.js'],
    ['a hash too short', 'app.3f9a8c1.js'],
    ['a hash with no extension after it', 'app.3f9a8c1b'],
    ['a hash in a directory name', 'assets/3f9a8c1b/app.js'],
    ['a hash in a directory name with dots', 'v.3f9a8c1b/app.js'],
    ['upper-case-only hash (esbuild), left alone', 'chunk-UWHSAZ6F.js'],
    ['a directory', 'assets/'],
    ['the root', ''],
    ['a hidden file named by its hash', '.3f9a8c1b.js'],
  ])('%s: %s', (_label, path) => {
    expect(isHashedAssetPath(path)).toBe(false);
  });
});
