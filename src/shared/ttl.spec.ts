import fc from 'fast-check';

import type { ApiError } from '../common/errors';
import { DEFAULT_TTL, expiryOf, InvalidTtlError, MAX_TTL_DAYS, MAX_TTL_HOURS, parseTtl, requestTtl, TTL_COLUMN, ttlWithin } from './ttl';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('parseTtl', () => {
  it.each([
    ['1h', HOUR],
    ['24h', DAY],
    ['1d', DAY],
    ['7d', 7 * DAY],
    ['30d', 30 * DAY],
    ['3650d', 3650 * DAY],
    ['87600h', 87600 * HOUR],
  ])('parses %s', (text, ms) => {
    expect(parseTtl(text)).toEqual({ text, ms });
  });

  it('parses forever as no expiry', () => {
    expect(parseTtl('forever')).toEqual({ text: 'forever', ms: null });
  });

  it('defaults to 7 days', () => {
    expect(DEFAULT_TTL).toEqual({ text: '7d', ms: 7 * DAY });
  });

  it.each<[string, unknown]>([
    ['zero', '0d'],
    ['a leading zero', '07d'],
    ['a negative number', '-1d'],
    ['a fraction', '1.5d'],
    ['an exponent', '1e3d'],
    ['hex', '0x10h'],
    ['no unit', '7'],
    ['no number', 'd'],
    ['an unknown unit', '7w'],
    ['minutes', '30m'],
    ['an upper-case unit', '7D'],
    ['spaces', ' 7d'],
    ['a trailing newline', '7d\n'],
    ['a number type', 7],
    ['null', null],
    ['undefined', undefined],
    ['Forever in another case', 'Forever'],
    ['the empty string', ''],
    ['one day over the max', `${MAX_TTL_DAYS + 1}d`],
    ['one hour over the max', `${MAX_TTL_HOURS + 1}h`],
    ['a number too big for a double', `${'9'.repeat(400)}d`],
  ])('rejects %s', (_label, raw) => {
    expect(() => parseTtl(raw)).toThrow(InvalidTtlError);
  });

  it('names the accepted forms and the field in the message', () => {
    expect(() => parseTtl('2w', 'default_ttl')).toThrow(
      'default_ttl must be "<n>h" (1 to 87600 hours), "<n>d" (1 to 3650 days) or "forever", e.g. "7d"; got "2w"',
    );
    expect(() => parseTtl(3)).toThrow(/^ttl must be .* got a number$/);
  });

  it('property: accepts exactly the canonical forms within the limits', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 100_000 }), fc.constantFrom('h', 'd'), (n, unit) => {
        const text = `${n}${unit}`;
        const max = unit === 'h' ? MAX_TTL_HOURS : MAX_TTL_DAYS;
        if (n >= 1 && n <= max) expect(parseTtl(text).ms).toBe(n * (unit === 'h' ? HOUR : DAY));
        else expect(() => parseTtl(text)).toThrow(InvalidTtlError);
      }),
    );
  });
});

describe('expiryOf', () => {
  const created = new Date('2026-01-31T10:00:00.000Z');

  it('adds the duration', () => {
    expect(expiryOf(created, parseTtl('1d'))).toEqual(new Date('2026-02-01T10:00:00.000Z'));
    expect(expiryOf(created, parseTtl('36h'))).toEqual(new Date('2026-02-01T22:00:00.000Z'));
  });

  it('is null for forever', () => {
    expect(expiryOf(created, parseTtl('forever'))).toBeNull();
  });

  it('stays a valid date at the longest TTL', () => {
    expect(expiryOf(created, parseTtl(`${MAX_TTL_DAYS}d`))!.toISOString()).toBe('2036-01-29T10:00:00.000Z');
  });
});

describe('ttlWithin', () => {
  it.each([
    ['7d', '30d', true],
    ['30d', '30d', true],
    ['720h', '30d', true],
    ['721h', '30d', false],
    ['31d', '30d', false],
    ['forever', '30d', false],
    ['3650d', 'forever', true],
    ['forever', 'forever', true],
  ])('%s within %s: %s', (ttl, max, expected) => {
    expect(ttlWithin(parseTtl(ttl), parseTtl(max))).toBe(expected);
  });
});

describe('requestTtl and TTL_COLUMN', () => {
  it('turns a bad request TTL into the 400 naming the field', () => {
    expect(requestTtl('30d', 'default_ttl')).toEqual(parseTtl('30d'));
    let body: unknown;
    try {
      requestTtl('soon', 'default_ttl');
    } catch (err) {
      body = (err as ApiError).body();
    }
    expect(body).toEqual({ statusCode: 400, error: 'Bad Request', code: 'validation_failed', message: expect.stringMatching(/^default_ttl must be "<n>h"/) });
  });

  it('stores the text and reads back the value', () => {
    expect(TTL_COLUMN.to(parseTtl('forever'))).toBe('forever');
    expect(TTL_COLUMN.from('12h')).toEqual(parseTtl('12h'));
  });
});
