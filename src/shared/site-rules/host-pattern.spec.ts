import fc from 'fast-check';

import { compileHostPattern, type HostPattern, hostsCanMatchTogether, matchHostPattern } from './host-pattern';

function host(raw: string): HostPattern {
  const p = compileHostPattern(raw);
  if ('error' in p) throw new Error(p.error);
  return p;
}

describe('compileHostPattern / matchHostPattern', () => {
  it('reads a plain host as its lower-case ASCII form (IDN to punycode, a trailing "." dropped)', () => {
    expect(host('Example.COM').host).toBe('example.com');
    expect(host('example.com.').host).toBe('example.com');
    expect(host('bücher.example').host).toBe('xn--bcher-kva.example');
    expect(host('xn--bcher-kva.example').host).toBe('xn--bcher-kva.example');
  });

  it.each([
    ['example.com', 'example.com', {}],
    ['example.com', 'www.example.com', null],
    ['example.com', 'example.co', null],
    [':sub.example.com', 'docs.example.com', { sub: 'docs' }],
    [':sub.example.com', 'a.b.example.com', null],
    [':sub.example.com', 'example.com', null],
    [':version.:project.pages.dev', 'abc.site.pages.dev', { version: 'abc', project: 'site' }],
    ['*.example.com', 'a.example.com', { splat: 'a' }],
    ['*.example.com', 'a.b.example.com', { splat: 'a.b' }],
    ['*.example.com', 'example.com', null],
    ['*.example.com', 'aexample.com', null],
    ['*', 'anything.example', { splat: 'anything.example' }],
    ['www.:domain.com', 'www.shop.com', { domain: 'shop' }],
    ['EXAMPLE.:tld', 'example.org', { tld: 'org' }],
    // "." and "-" in a literal label are text, never regular expression syntax.
    ['a-b.:x.com', 'a-b.y.com', { x: 'y' }],
    [':x.a-b.com', 'y.aXb.com', null],
  ])('%s against %s', (raw, requested, expected) => {
    expect(matchHostPattern(host(raw), requested)).toEqual(expected);
  });

  it.each([
    ['', 'is empty'],
    ['example.com:8443', 'has a port'],
    ['example.com:', 'has a port'],
    ['user@example.com', 'give only the host'],
    ['exa mple.com', 'give only the host'],
    ['[::1]', 'IP address'],
    ['127.0.0.1', 'IP address'],
    ['example..com', 'empty label'],
    ['.example.com', 'empty label'],
    ['a.*.example.com', 'after its first label'],
    ['*example.com', 'inside a label'],
    ['x-:sub.example.com', 'inside a label'],
    [':splat.example.com', 'reserved'],
    [':a.:a.example.com', 'twice'],
    ['-bad.example.com', 'no host name can have'],
    ['exa<mple.com', 'not a valid host name'],
    [`${'a'.repeat(64)}.com`, 'no host name can have'],
    [Array.from({ length: 60 }, () => 'abcd').join('.'), 'longer than 253'],
  ])('refuses %j', (raw, message) => {
    const p = compileHostPattern(raw);
    expect('error' in p && p.error).toContain(message);
  });

  it('gives patterns their literal prefix and suffix (what the 8 KB bound compares)', () => {
    expect([host('*.example.com').prefix, host('*.example.com').suffix]).toEqual(['', '.example.com']);
    expect([host('www.:x.com').prefix, host('www.:x.com').suffix]).toEqual(['www.', '.com']);
  });
});

describe('hostsCanMatchTogether', () => {
  it('is exact for plain hosts', () => {
    expect(hostsCanMatchTogether(host('a.example.com'), host('A.example.com.'))).toBe(true);
    expect(hostsCanMatchTogether(host('a.example.com'), host('b.example.com'))).toBe(false);
    expect(hostsCanMatchTogether(host('a.example.com'), host('*.example.com'))).toBe(true);
    expect(hostsCanMatchTogether(host(':x.example.org'), host('a.example.com'))).toBe(false);
    expect(hostsCanMatchTogether(host('*.example.com'), host(':x.other.com'))).toBe(false);
  });

  const label = fc.constantFrom('a', 'b', 'ab', 'example', 'com');
  const patternLabel = fc.oneof(label, fc.constant(':p'), fc.constant(':q'));
  const pattern = fc
    .tuple(fc.boolean(), fc.array(patternLabel, { minLength: 1, maxLength: 4 }))
    .map(([splat, labels]) => {
      // Placeholder names must differ within one pattern.
      let n = 0;
      const named = labels.map((l) => (l.startsWith(':') ? `:p${n++}` : l));
      return compileHostPattern([...(splat ? ['*'] : []), ...named].join('.'));
    })
    .filter((p): p is HostPattern => !('error' in p));
  const requested = fc.array(label, { minLength: 1, maxLength: 6 }).map((labels) => labels.join('.'));

  it('never says "no" for two patterns that match one same host', () => {
    fc.assert(
      fc.property(pattern, pattern, requested, (a, b, h) => {
        if (matchHostPattern(a, h) && matchHostPattern(b, h)) expect(hostsCanMatchTogether(a, b)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
