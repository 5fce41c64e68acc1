import fc from 'fast-check';

import { itMapsEach } from '../common/cases.fixture';
import { deriveSlug, MAX_SLUG_LENGTH, newSlugProblem, parseNewSlug, parseSlug, RESERVED_SLUGS, SLUG_PATTERN, slugProblem, withRandomSuffix } from './slug';

describe('slugProblem', () => {
  it.each(['a', '0', 'my-site', 'abc123', 'a-b-c', '123', 'blog', 'shop', 'a'.repeat(63), 'x-n--a'])('accepts %j', (slug) => {
    expect(slugProblem(slug)).toBeNull();
  });

  it.each<[string, string, RegExp]>([
    ['empty', '', /^slug must be a DNS label: it is empty$/],
    ['too long', 'a'.repeat(64), /^slug must be a DNS label: at most 63 characters, got 64$/],
    ['upper case', 'MySite', /^slug must be a DNS label: .*found "M"$/],
    ['an underscore', 'my_site', /found "_"/],
    ['a dot', 'my.site', /found "\."/],
    ['a space', 'my site', /found " "/],
    ['non-ASCII', 'café', /found "é"/],
    ['a leading hyphen', '-site', /^slug must be a DNS label: it must start and end with a letter or a digit$/],
    ['a trailing hyphen', 'site-', /start and end with a letter or a digit/],
    ['a punycode label', 'xn--caf-dma', /^slug "xn--caf-dma" is refused: .*punycode/],
    ['"--" in positions 3-4', 'ab--cd', /^slug "ab--cd" is refused: .*IDNA/],
    ['reserved "api"', 'api', /^slug "api" is reserved$/],
    ['reserved "www"', 'www', /is reserved/],
  ])('refuses %s', (_label, slug, message) => {
    expect(slugProblem(slug)).toMatch(message);
  });

  it('new slugs may not contain "--" anywhere (preview labels are <slug>--<version>); older ones still pass slugProblem', () => {
    expect(newSlugProblem('shop--2')).toMatch(/^slug "shop--2" is refused: "--" is reserved for preview addresses/);
    expect(newSlugProblem('a-b--c')).toMatch(/reserved for preview/);
    expect(slugProblem('shop--2')).toBeNull();
    expect(newSlugProblem('my-site')).toBeNull();
    expect(newSlugProblem('api')).toMatch(/is reserved$/);
  });

  it('new slugs have 1 or at least 3 characters: "ab--1" is a name certificate authorities refuse; older ones still pass slugProblem', () => {
    expect(newSlugProblem('ab')).toMatch(/^slug "ab" is refused: a slug has 1 or at least 3 characters/);
    expect(slugProblem('ab')).toBeNull();
    expect(newSlugProblem('a')).toBeNull();
    expect(newSlugProblem('abc')).toBeNull();
  });

  it('reserves the names the issue lists and the platform needs', () => {
    for (const name of [
      'api',
      'www',
      'admin',
      'app',
      'dashboard',
      'docs',
      'static',
      'assets',
      'mail',
      'status',
      'cdn',
      'auth',
      'login',
      'billing',
      'support',
      'help',
      'ns1',
      'ns2',
      'smtp',
      'ftp',
      'localhost',
      'statichost',
    ]) {
      expect(RESERVED_SLUGS.has(name)).toBe(true);
    }
  });

  it('every reserved name is itself a DNS label (else reserving it would be dead code)', () => {
    for (const name of RESERVED_SLUGS) expect(name).toMatch(SLUG_PATTERN);
  });

  it('leaves names users want for their own sites free', () => {
    for (const name of ['blog', 'shop', 'portfolio', 'demo', 'site', 'home']) expect(slugProblem(name)).toBeNull();
  });
});

describe('deriveSlug', () => {
  itMapsEach('%j → %j', deriveSlug, [
    ['My Site', 'my-site'],
    ['  Hello,   World!  ', 'hello-world'],
    ['Café Menü 2024', 'cafe-menu-2024'],
    ['Straße & Øresund', 'strasse-oresund'],
    ['Ｆｕｌｌｗｉｄｔｈ', 'fullwidth'],
    ['İstanbul', 'istanbul'],
    ['already-a-slug', 'already-a-slug'],
    ['a__b--c', 'a-b-c'],
    ['---', 'site'],
    ['', 'site'],
    ['日本語', 'site'],
    ['API', 'api-site'],
    ['www', 'www-site'],
    ['xn--caf-dma', 'xn-caf-dma'],
    ['AB', 'ab-site'],
    ['Go!', 'go-site'],
    ['X', 'x'],
  ]);

  it('truncates to 63 characters without a trailing hyphen', () => {
    expect(deriveSlug('a'.repeat(100))).toBe('a'.repeat(63));
    const slug = deriveSlug(`${'a'.repeat(62)} b`);
    expect(slug).toBe('a'.repeat(62));
  });
});

describe('withRandomSuffix', () => {
  it('appends a hyphen and six random base36 characters', () => {
    expect(withRandomSuffix('my-site')).toMatch(/^my-site-[a-z0-9]{6}$/);
    expect(withRandomSuffix('my-site')).not.toBe(withRandomSuffix('my-site'));
  });

  it('shortens a long base so the result fits in 63 characters', () => {
    const slug = withRandomSuffix('a'.repeat(63));
    expect(slug).toMatch(/^a{56}-[a-z0-9]{6}$/);
    expect(slug).toHaveLength(MAX_SLUG_LENGTH);
  });

  it('does not leave "--" where the cut lands on a hyphen', () => {
    expect(withRandomSuffix(`${'a'.repeat(55)}-bbbbbb`)).toMatch(/^a{55}-[a-z0-9]{6}$/);
  });

  it('falls back to "site-…" for a base that is no slug', () => {
    expect(withRandomSuffix('')).toMatch(/^site-[a-z0-9]{6}$/);
    expect(withRandomSuffix('xn--abc')).toMatch(/^site-[a-z0-9]{6}$/);
  });
});

describe('properties', () => {
  const names = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('a', 'Z', '9', '-', ' ', '_', 'é', 'ß', 'İ', 'x', 'n', '.', 'ﬁ'), maxLength: 80 }),
    fc.constantFrom(...RESERVED_SLUGS).map((s) => s.toUpperCase()),
  );

  it('deriveSlug always gives a usable slug', () => {
    fc.assert(
      fc.property(names, (name) => expect(slugProblem(deriveSlug(name))).toBeNull()),
      { numRuns: 2_000 },
    );
  });

  it('withRandomSuffix(deriveSlug(x)) always gives a usable slug that keeps the derived start', () => {
    fc.assert(
      fc.property(names, (name) => {
        const base = deriveSlug(name);
        const slug = withRandomSuffix(base);
        expect(slugProblem(slug)).toBeNull();
        expect(base.startsWith(slug.slice(0, -7))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('parseSlug and parseNewSlug', () => {
  it('give the value, or the problem slugProblem / newSlugProblem names', () => {
    expect(parseSlug('shop--2')).toEqual({ ok: true, value: 'shop--2' });
    expect(parseNewSlug('shop--2')).toEqual({ ok: false, problem: newSlugProblem('shop--2') });
    expect(parseSlug('API')).toEqual({ ok: false, problem: slugProblem('API') });
    expect(parseNewSlug('my-site')).toEqual({ ok: true, value: 'my-site' });
  });
});
