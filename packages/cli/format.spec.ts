import fc from 'fast-check';

import { slugFromName } from '../shared/slug';
import { formatBytes, formatTime, pageNote, pageTable, table, tableSection, withRandomSuffix } from './format';

describe('CLI formatting', () => {
  it('aligns table columns and shows missing values as -', () => {
    expect(
      table(
        ['ID', 'NAME', 'URL'],
        [
          ['proj_1', 'Site', 'http://a'],
          ['proj_22', null, 'http://bb'],
        ],
      ),
    ).toBe(['ID       NAME  URL', 'proj_1   Site  http://a', 'proj_22  -     http://bb'].join('\n'));
    expect(table(['A'], [])).toBe('A');
  });

  it('formats sizes and times', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5 MB');
    expect(formatTime('2030-01-02T03:04:05.678Z')).toBe('2030-01-02 03:04');
    expect(formatTime(null)).toBe('-');
  });

  it('notes further pages only when there are some', () => {
    expect(pageNote({ total: 5, page: 1, totalPages: 1 })).toBeUndefined();
    expect(pageNote({ total: 45, page: 2, totalPages: 3 })).toBe('page 2 of 3 (45 in all; --page to see more)');
  });

  it('prints a page as its table, with the page note only when there are more pages', () => {
    const data = [{ id: 'a', n: 1 }];
    const row = (x: { id: string; n: number }) => [x.id, x.n];
    expect(pageTable({ data, meta: { total: 1, page: 1, totalPages: 1 } }, ['ID', 'N'], row)).toBe('ID  N\na   1');
    expect(pageTable({ data, meta: { total: 45, page: 2, totalPages: 3 } }, ['ID', 'N'], row)).toBe(
      'ID  N\na   1\npage 2 of 3 (45 in all; --page to see more)',
    );
  });

  it('prints a section only for a non-empty list, after a blank line', () => {
    expect(tableSection([], ['PAGE'], (p: string) => [p])).toEqual([]);
    expect(tableSection(['/a'], ['PAGE'], (p) => [p])).toEqual(['', 'PAGE\n/a']);
  });

  it('suffixes a folder slug with 6 random characters, keeping it a DNS label', () => {
    expect(withRandomSuffix('my-site')).toMatch(/^my-site-[a-z0-9]{6}$/);
    expect(withRandomSuffix('my-site')).not.toBe(withRandomSuffix('my-site'));
    expect(withRandomSuffix(`${'a'.repeat(55)}-bbbbbb`)).toMatch(/^a{55}-[a-z0-9]{6}$/);
    expect(withRandomSuffix('')).toMatch(/^site-[a-z0-9]{6}$/);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), (name) => {
        const base = slugFromName(name) || 'site';
        const slug = withRandomSuffix(base);
        expect(slug).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
        expect(slug).not.toContain('--');
        expect(slug.startsWith(base.slice(0, 20).replace(/-+$/, ''))).toBe(true);
      }),
    );
  });
});
