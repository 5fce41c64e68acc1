import fc from 'fast-check';

import { compilePathPattern, compileTemplate, encodePathValue, matchPathPattern, type PathPattern, safeQuery } from './pattern';

function pattern(raw: string): PathPattern {
  const p = compilePathPattern(raw);
  if ('error' in p) throw new Error(p.error);
  return p;
}

describe('compilePathPattern / matchPathPattern', () => {
  it('gives static patterns their canonical path', () => {
    expect(pattern('/').path).toBe('');
    expect(pattern('/a/b%20c.html').path).toBe('a/b c.html');
    expect(pattern('/dir/').path).toBe('dir/');
  });

  it('gives every pattern its decoded literal prefix and suffix (what _headers bounds co-matching blocks by)', () => {
    expect([pattern('/blog/*.ht%6Dl').prefix, pattern('/blog/*.ht%6Dl').suffix]).toEqual(['/blog/', '.html']);
    expect([pattern('/u/:id/x/*').prefix, pattern('/u/:id/x/*').suffix]).toEqual(['/u/', '']);
    expect([pattern('/a/b').prefix, pattern('/a/b').suffix]).toEqual(['/a/b', '/a/b']);
  });

  it.each([
    ['/*', '', { splat: '' }],
    ['/*', 'a/b/', { splat: 'a/b/' }],
    ['/blog/*', 'blog/', { splat: '' }],
    ['/blog/*', 'blog', null],
    ['/blog/*.html', 'blog/a/b.html', { splat: 'a/b' }],
    ['/blog/*.html', 'blog/a/bhtml', null],
    ['/:year/:slug', '2024/hello', { year: '2024', slug: 'hello' }],
    ['/:year/:slug', '2024/hello/', null],
    ['/:year/:slug/', '2024/hello/', { year: '2024', slug: 'hello' }],
    ['/u/:id/*', 'u/7/a/b', { id: '7', splat: 'a/b' }],
    ['/a.b/*', 'aXb/c', null],
    ['/(x)/*', '(x)/y', { splat: 'y' }],
    ['/caf%C3%A9/:x', 'café/1', { x: '1' }],
  ])('%s against %j', (raw, path, expected) => {
    expect(matchPathPattern(pattern(raw), path)).toEqual(expected);
  });

  it('has no catastrophic backtracking (placeholders are whole segments, one splat)', () => {
    const p = pattern('/*/:a/:b/:c/x');
    const long = `${'a/'.repeat(500)}y`;
    const start = Date.now();
    for (let i = 0; i < 100; i++) matchPathPattern(p, long);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('matches exactly what a naive glob of the decoded pattern matches', () => {
    const seg = fc.constantFrom('a', 'b', 'ab', 'a.b');
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 4 }), fc.array(seg, { maxLength: 4 }), (patternSegs, pathSegs) => {
        const p = pattern(`/${patternSegs.join('/')}/*`);
        const path = pathSegs.join('/');
        const prefix = `${patternSegs.join('/')}/`;
        expect(matchPathPattern(p, path) !== null).toBe(path.startsWith(prefix));
      }),
    );
  });
});

describe('compileTemplate', () => {
  it('treats only known names as captures', () => {
    expect(compileTemplate('https://example.com:8443/:id/:other?x=:splat', ['id', 'splat'])).toEqual([
      { kind: 'text', raw: 'https://example.com:8443/' },
      { kind: 'value', name: 'id' },
      { kind: 'text', raw: '/:other?x=' },
      { kind: 'value', name: 'splat' },
    ]);
    // A name runs to the first non-word character, so ":idx" is not ":id".
    expect(compileTemplate('/:idx/:id.html', ['id'])).toEqual([
      { kind: 'text', raw: '/:idx/' },
      { kind: 'value', name: 'id' },
      { kind: 'text', raw: '.html' },
    ]);
  });
});

describe('encoders', () => {
  it('encodePathValue keeps "/" and readable pchars, encodes the rest', () => {
    expect(encodePathValue('a b/café/@x:y/%/?#\\')).toBe('a%20b/caf%C3%A9/@x:y/%25/%3F%23%5C');
  });

  it('safeQuery passes a query through and encodes what a header cannot carry', () => {
    expect(safeQuery('a=1&b=%20')).toBe('a=1&b=%20');
    expect(safeQuery('a=é b\n')).toBe('a=%C3%A9%20b%0A');
    expect(safeQuery('a=\ud800')).toBe('a=');
  });
});
