import fc from 'fast-check';

import { normaliseDeployPath } from '../../deployments/file-path';
import { pathHasFile, resolveCanonical, resolveSitePath, rewriteTargetFile, type SiteAnswer } from './canonical';
import { parseRequestPath } from './request-path';

const site = (...files: string[]) => {
  const set = new Set(files);
  return (p: string) => set.has(p);
};

describe('resolveCanonical (Cloudflare Pages route matching)', () => {
  const has = site('index.html', 'about.html', 'contact/index.html', 'docs.html', 'docs/index.html', 'app.js', 'caf\u00e9.html', 'raw', 'raw.html');

  it.each<[string, string, SiteAnswer | null]>([
    ['', '', { kind: 'file', path: 'index.html', status: 200 }],
    ['index.html', '', { kind: 'redirect', location: '/', status: 308 }],
    ['index', '', { kind: 'redirect', location: '/', status: 308 }],
    ['about', '', { kind: 'file', path: 'about.html', status: 200 }],
    ['about.html', 'utm=1&x=%20', { kind: 'redirect', location: '/about?utm=1&x=%20', status: 308 }],
    ['about/', '', { kind: 'redirect', location: '/about', status: 308 }],
    ['contact', 'a=1', { kind: 'redirect', location: '/contact/?a=1', status: 308 }],
    ['contact/', '', { kind: 'file', path: 'contact/index.html', status: 200 }],
    ['contact/index.html', 'a=1', { kind: 'redirect', location: '/contact/?a=1', status: 308 }],
    ['contact/index', '', { kind: 'redirect', location: '/contact/', status: 308 }],
    ['contact/index/', '', { kind: 'redirect', location: '/contact/', status: 308 }],
    ['docs', '', { kind: 'file', path: 'docs.html', status: 200 }],
    ['docs/', '', { kind: 'file', path: 'docs/index.html', status: 200 }],
    ['app.js', 'v=2', { kind: 'file', path: 'app.js', status: 200 }],
    ['caf\u00e9.html', '', { kind: 'redirect', location: '/caf%C3%A9', status: 308 }],
    ['raw.html', '', { kind: 'file', path: 'raw.html', status: 200 }],
    ['raw', '', { kind: 'file', path: 'raw', status: 200 }],
    ['missing', '', null],
    ['missing/', '', null],
    ['missing/index', '', null],
    // Not a redirect to nothing (which chained through each `index/` of the path before its 404).
    ['missing/index/', '', null],
    ['index/index/index/index/', '', null],
    ['about.html/', '', null],
  ])('%j ?%s', (path, query, expected) => {
    expect(resolveCanonical(path, query, has)).toEqual(expected);
  });

  it('serves a file named ".html" inside a directory rather than redirecting it away', () => {
    expect(resolveCanonical('a/.html', '', site('a/.html'))).toEqual({ kind: 'file', path: 'a/.html', status: 200 });
  });

  it('pathHasFile and resolveSitePath combine it with the not-found rules', () => {
    const h = site('index.html', 'about.html', '404.html');
    expect(pathHasFile('about.html', h)).toBe(true);
    expect(pathHasFile('about', h)).toBe(true);
    expect(pathHasFile('nope', h)).toBe(false);
    expect(resolveSitePath('nope', '', 'GET', h)).toEqual({ kind: 'file', path: '404.html', status: 404 });
    expect(resolveSitePath('nope', '', 'GET', site('index.html'))).toEqual({ kind: 'file', path: 'index.html', status: 200 });
    expect(resolveSitePath('nope.js', '', 'GET', site('index.html'))).toEqual({ kind: 'not_found' });
  });

  it('rewriteTargetFile finds the file a rewrite serves, without redirects', () => {
    const h = site('index.html', 'app/index.html', 'about.html');
    expect(rewriteTargetFile('', h)).toBe('index.html');
    expect(rewriteTargetFile('app', h)).toBe('app/index.html');
    expect(rewriteTargetFile('about', h)).toBe('about.html');
    expect(rewriteTargetFile('index.html', h)).toBe('index.html');
    expect(rewriteTargetFile('nope', h)).toBeUndefined();
  });

  describe('properties', () => {
    // Small alphabets so that collisions (about.html next to about/index.html, index inside index…) are common.
    const segment = fc.constantFrom('a', 'b', 'index', 'about', 'x.y', '.html', 'é');
    const ext = fc.constantFrom('', '.html', '.html', '.js', '.html.html');
    const file = fc.tuple(fc.array(segment, { minLength: 0, maxLength: 3 }), segment, ext).map(([dirs, name, e]) => [...dirs, `${name}${e}`].join('/'));
    const files = fc.uniqueArray(file, { maxLength: 12 }).map((list) => list.filter((p) => safeDeployPath(p)));
    const request = fc.tuple(
      fc.array(fc.constantFrom('a', 'b', 'index', 'about', 'x.y', '.html', 'é', 'about.html', 'index.html', 'a.js'), { maxLength: 4 }),
      fc.boolean(),
    );

    function follow(path: string, has: (p: string) => boolean): { answer: SiteAnswer | null; steps: number } {
      let current = path;
      for (let steps = 0; steps <= 5; steps++) {
        const answer = resolveCanonical(current, 'q=1', has);
        if (answer?.kind !== 'redirect') return { answer, steps };
        expect(answer.location.endsWith('?q=1')).toBe(true);
        expect(answer.location.startsWith('//')).toBe(false);
        const next = parseRequestPath(answer.location);
        expect(next).not.toBeNull();
        current = next!;
      }
      throw new Error(`redirect loop from ${JSON.stringify(path)}`);
    }

    it('following canonical redirects ends within a few steps, whatever the files and the request', () => {
      fc.assert(
        fc.property(files, request, (list, [segs, slash]) => {
          const has = site(...list);
          const path = segs.join('/') + (slash && segs.length ? '/' : '');
          const { steps } = follow(path, has);
          expect(steps).toBeLessThanOrEqual(3);
        }),
        { numRuns: 2000 },
      );
    });

    it('every file is reachable: requesting its path ends on that very file', () => {
      fc.assert(
        fc.property(files, (list) => {
          const has = site(...list);
          for (const f of list) {
            const { answer } = follow(f, has);
            expect(answer).toEqual({ kind: 'file', path: f, status: 200 });
          }
        }),
        { numRuns: 2000 },
      );
    });
  });
});

function safeDeployPath(p: string): boolean {
  try {
    return normaliseDeployPath(p) === p;
  } catch {
    return false;
  }
}
