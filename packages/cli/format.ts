/** Human output: aligned tables, sizes and times. Scripts use --json instead. */

import { randomInt } from 'node:crypto';

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${+(n / 1024 ** 3).toFixed(1)} GB`;
  if (n >= 1024 * 1024) return `${+(n / 1024 ** 2).toFixed(1)} MB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

/** `2030-01-01T10:00:00.000Z` → `2030-01-01 10:00`, UTC; null → `-`. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  return iso.replace('T', ' ').slice(0, 16);
}

const width = (s: string) => [...s].length;

/** A table cell; null, undefined and '' show as `-`. */
export type Cell = string | number | null | undefined;

/** A plain table: a header row, then one row per item, columns separated by two spaces. */
export function table(headers: string[], rows: Cell[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(width(h), ...cells.map((r) => width(r[i] ?? ''))));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - width(c))))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** `page 1 of 3 (42 in all)` under a list, when there is more than one page. */
export function pageNote(meta: { total: number; page: number; totalPages: number } | undefined): string | undefined {
  if (!meta || meta.totalPages <= 1) return undefined;
  return `page ${meta.page} of ${meta.totalPages} (${meta.total} in all; --page to see more)`;
}

/** A page of a list as the API answers it. */
export type Page<T> = { data: T[]; meta?: { total: number; page: number; totalPages: number } };

/** One page of a list: its table, then the note when there are more pages. */
export function pageTable<T>(page: Page<T>, headers: string[], row: (item: T) => Cell[]): string {
  return [table(headers, page.data.map(row)), pageNote(page.meta)].filter(Boolean).join('\n');
}

/** A blank line and a table of `items`, or nothing when there are none. */
export function tableSection<T>(items: readonly T[], headers: string[], row: (item: T) => Cell[]): string[] {
  return items.length ? ['', table(headers, items.map(row))] : [];
}

const SUFFIX_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const SUFFIX_LENGTH = 6;
const MAX_SLUG_LENGTH = 63;

/**
 * `<base>-<6 random [a-z0-9]>`, the next try when the service refuses a slug taken
 * from the folder's name. The base is slugFromName's (packages/shared/slug.ts: letters, digits, single dashes),
 * so cutting it and adding the suffix keeps a valid label; the service still checks
 * it (the CLI holds none of its rules: reserved names stay the service's word).
 */
export function withRandomSuffix(base: string): string {
  let suffix = '';
  while (suffix.length < SUFFIX_LENGTH) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  const head = base.slice(0, MAX_SLUG_LENGTH - SUFFIX_LENGTH - 1).replace(/-+$/, '');
  return head === '' ? `site-${suffix}` : `${head}-${suffix}`;
}
