import { formatBytes as apiWording } from '../../packages/shared/format-bytes';
import { DEFAULT_LOCALE, formatsFor, pickLocale } from './locale';

describe('dashboard locale', () => {
  it('pickLocale: reads a POSIX locale name as the tag it means, skips what Intl refuses, else the default', () => {
    expect(pickLocale(['en-US@posix'])).toBe('en-US');
    expect(pickLocale(['de_DE.UTF-8'])).toBe('de-DE');
    expect(pickLocale(['en-us'])).toBe('en-US');
    expect(pickLocale([undefined, '', 'C', '*', 'fr-CA'])).toBe('fr-CA');
    expect(pickLocale(['C', '*'])).toBe(DEFAULT_LOCALE);
    expect(pickLocale([])).toBe(DEFAULT_LOCALE);
  });

  it('formats numbers, sizes and times in the picked locale, never throwing on a refused tag', () => {
    expect(() => new Intl.NumberFormat('en-US@posix')).toThrow(RangeError);
    const posix = formatsFor(['en-US@posix']);
    expect(posix.locale).toBe('en-US');
    expect(posix.number(1234.5)).toBe('1,234.5');
    expect(posix.bytes(1600)).toBe('1.6 KB');
    expect(posix.time(new Date(Date.UTC(2026, 10, 26, 12)))).toMatch(/^Nov 2[67], 2026, \d{1,2}:00\s[AP]M$/);
    const german = formatsFor(['de-DE']);
    expect(german.number(1234.5)).toBe('1.234,5');
    expect(german.bytes(1600)).toBe('1,6 KB');
    expect(german.time(new Date(Date.UTC(2026, 10, 26, 12)))).toMatch(/^2[67]\.11\.2026, \d{2}:00$/);
    expect(formatsFor(['C']).number(1234.5)).toBe('1,234.5');
  });

  it('sizes in English are the API’s own wording (packages/shared/format-bytes.ts)', () => {
    const english = formatsFor(['en-US']);
    for (const n of [0, 1, 512, 1023, 1024, 1600, 64 * 1024, 3.5 * 1024 ** 2, 1024 ** 3 - 1, 5 * 1024 ** 3, 2.25 * 1024 ** 4, 5000 * 1024 ** 4]) {
      expect([n, english.bytes(n)]).toEqual([n, apiWording(n)]);
    }
  });

  it('ago: the largest whole unit before now, in the locale; a little ahead or just now reads as now', () => {
    const now = new Date(Date.UTC(2026, 10, 26, 12));
    const before = (seconds: number) => new Date(now.getTime() - seconds * 1000);
    const english = formatsFor(['en-US@posix']);
    expect(english.ago(before(0), now)).toBe('now');
    expect(english.ago(before(-30), now)).toBe('now');
    expect(english.ago(before(42), now)).toBe('42 seconds ago');
    expect(english.ago(before(3 * 60 + 59), now)).toBe('3 minutes ago');
    expect(english.ago(before(3600), now)).toBe('1 hour ago');
    expect(english.ago(before(86_400 + 5), now)).toBe('yesterday');
    expect(english.ago(before(3 * 86_400), now)).toBe('3 days ago');
    expect(english.ago(before(15 * 86_400), now)).toBe('2 weeks ago');
    expect(english.ago(before(400 * 86_400), now)).toBe('last year');
    expect(formatsFor(['de-DE']).ago(before(5 * 60), now)).toBe('vor 5 Minuten');
  });

  it('money: minor units in the currency’s own decimals, in the locale', () => {
    expect(formatsFor(['en-US']).money(1900, 'usd')).toBe('$19.00');
    expect(formatsFor(['en-US']).money(99000, 'usd')).toBe('$990.00');
    expect(formatsFor(['de-DE']).money(120000, 'eur')).toBe('1.200,00\u00a0€');
    expect(formatsFor(['en-US']).money(500, 'jpy')).toBe('¥500');
  });
});
