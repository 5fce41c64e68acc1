import {
  conditionsSignature,
  countryHolds,
  languageHolds,
  languageMatches,
  NO_CONDITIONS,
  parseCountries,
  parseLanguages,
  parseQueryCondition,
  queryHolds,
  queryParams,
} from './conditions';
import { EMPTY_CONTEXT } from './request-context';

describe('languageMatches (RFC 4647 basic filtering)', () => {
  it.each([
    ['en', 'en', true],
    ['en', 'en-us', true],
    ['en', 'en-gb-oxendict', true],
    ['en-us', 'en-us', true],
    ['en-us', 'en', false],
    ['en', 'eng', false],
    ['zh-hant', 'zh-hant-tw', true],
    ['zh-hant', 'zh-hans', false],
  ])('%s takes %s: %s', (range, tag, expected) => {
    expect(languageMatches(range, tag)).toBe(expected);
  });

  it('looks only at the most preferred language', () => {
    expect(languageHolds(['de'], { ...EMPTY_CONTEXT, languages: ['de-at', 'en'] })).toBe(true);
    expect(languageHolds(['en'], { ...EMPTY_CONTEXT, languages: ['de-at', 'en'] })).toBe(false);
    expect(languageHolds(['en'], EMPTY_CONTEXT)).toBe(false);
    expect(languageHolds(['pt-br'], { ...EMPTY_CONTEXT, languages: ['pt-BR'] })).toBe(true);
  });
});

describe('countryHolds', () => {
  it('compares upper-case codes and never matches an unknown country', () => {
    expect(countryHolds(['US', 'CA'], { ...EMPTY_CONTEXT, country: 'CA' })).toBe(true);
    expect(countryHolds(['US'], { ...EMPTY_CONTEXT, country: 'us' })).toBe(true);
    expect(countryHolds(['US'], { ...EMPTY_CONTEXT, country: null })).toBe(false);
  });
});

describe('parsing condition values', () => {
  it('reads comma lists, trimming, with case normalised', () => {
    expect(parseLanguages('en,pt-BR, FR')).toEqual(['en', 'pt-br', 'fr']);
    expect(parseCountries('us,De')).toEqual(['US', 'DE']);
    expect(parseCountries('us,,de')).toEqual({ error: expect.stringContaining('"" is not a two-letter') });
    expect(parseLanguages('*')).toEqual({ error: expect.stringContaining('"*" is not a language tag') });
  });

  it('reads query conditions, decoding keys and literal values', () => {
    expect(parseQueryCondition('id=:id', [])).toEqual({ key: 'id', capture: 'id', value: '' });
    expect(parseQueryCondition('a%20b=c+d', [])).toEqual({ key: 'a b', capture: null, value: 'c d' });
    expect(parseQueryCondition('flag=', [])).toEqual({ key: 'flag', capture: null, value: '' });
    expect(parseQueryCondition('id=:id', ['id'])).toEqual({ error: expect.stringContaining('already uses') });
    expect(parseQueryCondition('nokey', [])).toEqual({ error: expect.stringContaining('is neither a query condition') });
  });
});

describe('query matching', () => {
  it('requires every parameter, allows extra ones, captures values and takes the first of a repeated one', () => {
    const conditions = [
      { key: 'a', capture: 'x', value: '' },
      { key: 'b', capture: null, value: '1 2' },
    ];
    const into: Record<string, string> = {};
    expect(queryHolds(conditions, queryParams('b=1+2&a=%C3%A9&c=3'), into)).toBe(true);
    expect(into).toEqual({ x: 'é' });
    expect(queryHolds(conditions, queryParams('a=1'), {})).toBe(false);
    expect(queryHolds(conditions, queryParams('a=1&b=9&b=1+2'), {})).toBe(false);
    expect(queryParams('')).toEqual(new Map());
  });
});

describe('conditionsSignature', () => {
  it('is equal for conditions that match the same requests', () => {
    const one = {
      query: [
        { key: 'a', capture: 'x', value: '' },
        { key: 'b', capture: null, value: '1' },
      ],
      languages: ['en', 'fr'],
      countries: null,
    };
    const two = {
      query: [
        { key: 'b', capture: null, value: '1' },
        { key: 'a', capture: 'y', value: '' },
      ],
      languages: ['fr', 'en'],
      countries: null,
    };
    expect(conditionsSignature(one, null)).toBe(conditionsSignature(two, null));
    expect(conditionsSignature(one, null)).not.toBe(conditionsSignature(one, 'a.example'));
    expect(conditionsSignature(NO_CONDITIONS, null)).not.toBe(conditionsSignature({ ...NO_CONDITIONS, countries: [] }, null));
  });
});
