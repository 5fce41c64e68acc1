/**
 * Every date, number and size the dashboard shows is formatted here, in the browser's
 * language. Browsers can report a tag that Intl refuses with a RangeError: Chromium under
 * Debian's default locale (C.UTF-8) says "en-US@posix" (issue 26, where it took the
 * Analytics page down). Such a tag is read as what it means ("en-US"), and anything still
 * unusable falls back to DEFAULT_LOCALE, so formatting never throws. ESLint keeps `Intl`
 * and `toLocale*String` out of the rest of web/src.
 */
export const DEFAULT_LOCALE = 'en-US';

/** `tag` if Intl accepts it, canonicalised; else undefined. */
export function accepted(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * The first of the requested tags that Intl accepts, as given or read as a POSIX locale
 * name ("en-US@posix", "de_DE.UTF-8" → "en-US", "de-DE"); DEFAULT_LOCALE when none is.
 */
export function pickLocale(requested: readonly (string | null | undefined)[]): string {
  for (const tag of requested) {
    if (!tag) continue;
    const usable = accepted(tag) ?? accepted(tag.replace(/[.@].*$/, '').replace(/_/g, '-'));
    if (usable) return usable;
  }
  return DEFAULT_LOCALE;
}

const BYTE_UNITS: [number, string][] = [
  [1024 ** 4, 'TB'],
  [1024 ** 3, 'GB'],
  [1024 ** 2, 'MB'],
  [1024, 'KB'],
];

export type Formats = {
  /** The locale they format in. */
  locale: string;
  number(n: number): string;
  /** A size in binary units as the API words it (`512 bytes`, `64 KB`, `3.5 MB`), with the locale's decimal mark. */
  bytes(n: number): string;
  /** A date and time (medium date, short time) in the browser's time zone. */
  time(at: Date): string;
  /** How long before `now` (`3 minutes ago`, `yesterday`), in the largest whole unit; a time a little ahead (clock skew) reads as `now`. */
  ago(at: Date, now: Date): string;
  /** An amount in a currency's minor units (the API's prices: 1900 usd is $19.00), in the locale's words. */
  money(amount: number, currency: string): string;
};

/** The largest unit that fits, in seconds; the rest rounds down in it. */
const AGO_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

function build(locale: string): Formats {
  const numbers = new Intl.NumberFormat(locale);
  // Sizes keep the API's wording (packages/shared/format-bytes.ts): one decimal at most, no grouping.
  const sizes = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, useGrouping: false });
  const times = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  return {
    locale,
    number: (n) => numbers.format(n),
    bytes: (n) => {
      for (const [size, unit] of BYTE_UNITS) if (n >= size) return `${sizes.format(n / size)} ${unit}`;
      return `${sizes.format(n)} bytes`;
    },
    time: (at) => times.format(at),
    ago: (at, now) => {
      const seconds = Math.max(0, Math.floor((now.getTime() - at.getTime()) / 1000));
      // Under 10 s "now": a list that just refreshed should not count the seconds.
      if (seconds < 10) return relative.format(0, 'second');
      const [unit, size] = AGO_UNITS.find(([, s]) => seconds >= s) ?? AGO_UNITS[AGO_UNITS.length - 1];
      return relative.format(-Math.floor(seconds / size), unit);
    },
    money: (amount, currency) => {
      const money = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
      // Minor units per major one are the currency's own: cents for usd, none for jpy.
      const digits = money.resolvedOptions().maximumFractionDigits ?? 2;
      return money.format(amount / 10 ** digits);
    },
  };
}

/** The formats of the first usable requested locale; of DEFAULT_LOCALE when Intl refuses even that. */
export function formatsFor(requested: readonly (string | null | undefined)[]): Formats {
  try {
    return build(pickLocale(requested));
  } catch {
    return build(DEFAULT_LOCALE);
  }
}

let current: Formats | undefined;

/** The browser's formats, made once (a page keeps one language). */
export function formats(): Formats {
  current ??= formatsFor(typeof navigator === 'undefined' ? [] : [...(navigator.languages ?? []), navigator.language]);
  return current;
}

/** The browser's language as Intl accepts it. */
export function locale(): string {
  return formats().locale;
}

export function formatNumber(n: number): string {
  return formats().number(n);
}

/** A size as the API words it, in the browser's language; a dash when there is none. */
export function formatBytes(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : formats().bytes(n);
}

/** A date and time in the browser's language and time zone; a dash when there is none. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? formats().time(new Date(iso)) : '—';
}

/** How long ago, in the browser's language (`3 minutes ago`); a dash when there is none. */
export function formatAgo(iso: string | null | undefined, now: Date = new Date()): string {
  return iso ? formats().ago(new Date(iso), now) : '—';
}

/** A price from the API (minor units and an ISO 4217 code) in the browser's language. */
export function formatMoney(amount: number, currency: string): string {
  return formats().money(amount, currency);
}
