import fc from 'fast-check';

import { slugFromName } from './slug';

describe('slugFromName', () => {
  it('keeps letters and digits, lowercased, with single dashes between words', () => {
    expect(slugFromName('My Site')).toBe('my-site');
    expect(slugFromName('My Portfolio')).toBe('my-portfolio');
    expect(slugFromName('  --Über_Cool.site-- ')).toBe('uber-cool-site');
    expect(slugFromName('  Café  Olé! ')).toBe('cafe-ole');
    expect(slugFromName('dist')).toBe('dist');
  });

  it('gives no 2-character slug (its previews would be labels CAs refuse): "Go" is go-site, as the service derives it', () => {
    expect(slugFromName('Go')).toBe('go-site');
    expect(slugFromName('ui')).toBe('ui-site');
    expect(slugFromName('X')).toBe('x');
    expect(slugFromName('abc')).toBe('abc');
  });

  it('is empty when nothing of the name is a letter or digit', () => {
    expect(slugFromName('!!!')).toBe('');
    expect(slugFromName('---')).toBe('');
  });

  it('cuts at 63 characters without leaving a dash at the end', () => {
    expect(slugFromName('a'.repeat(80))).toHaveLength(63);
    expect(slugFromName('a'.repeat(62) + ' b')).toBe('a'.repeat(62));
  });

  it('is always empty or one DNS label with no double dash, for any name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), (name) => {
        const slug = slugFromName(name);
        expect(slug).toMatch(/^$|^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
        expect(slug).not.toContain('--');
        expect(slug).not.toHaveLength(2);
      }),
    );
  });
});
