import { assertFileObject, describeFileEntry, InvalidFileEntryError } from './file-entry';

const SHA = 'a'.repeat(64);

describe('describeFileEntry', () => {
  it('tells inline entries from digest entries', () => {
    expect(describeFileEntry({ content: '' }, 0)).toEqual({ kind: 'inline' });
    expect(describeFileEntry({ content: 'x', encoding: 'base64' }, 0)).toEqual({ kind: 'inline' });
    expect(describeFileEntry({ sha256: SHA, size: 0 }, 0)).toEqual({ kind: 'digest', sha256: SHA, size: 0 });
  });

  it('lowercases the hash', () => {
    expect(describeFileEntry({ sha256: 'ABCDEF'.padEnd(64, '0'), size: 3 }, 0)).toEqual({ kind: 'digest', sha256: 'abcdef'.padEnd(64, '0'), size: 3 });
  });

  it.each([
    [{}, /files\[2\] needs either content .* or sha256 and size/],
    [{ content: 'x', sha256: SHA, size: 1 }, /files\[2\] has both content and sha256/],
    [{ sha256: SHA, size: 1, encoding: 'utf8' }, /files\[2\]\.encoding applies to content only/],
    [{ sha256: SHA }, /files\[2\]\.size must be .* got nothing/],
    [{ size: 1 }, /files\[2\]\.sha256 must be 64 hexadecimal characters/],
    [{ sha256: 'abc', size: 1 }, /got "abc"/],
    [{ sha256: `${SHA}0`, size: 1 }, /sha256 must be 64/],
    [{ sha256: 'g'.repeat(64), size: 1 }, /sha256 must be 64/],
    [{ sha256: SHA, size: -1 }, /size must be .* got -1/],
    [{ sha256: SHA, size: 1.5 }, /got 1.5/],
    [{ sha256: SHA, size: '12' }, /got "12"/],
    [{ sha256: SHA, size: 2 ** 60 }, /size must be/],
  ])('refuses %j, naming the entry', (entry, message) => {
    expect(() => describeFileEntry(entry, 2)).toThrow(InvalidFileEntryError);
    expect(() => describeFileEntry(entry, 2)).toThrow(message);
  });
});

describe('assertFileObject', () => {
  it.each([[null], ['index.html'], [42], [[{ path: 'a' }]]])('refuses the entry %j, naming it', (entry) => {
    expect(() => assertFileObject(entry, 3)).toThrow(/^files\[3\] must be an object/);
  });
  it('refuses unknown fields, naming them', () => {
    expect(() => assertFileObject({ path: 'a', content: 'x', mode: 644 }, 1)).toThrow('files[1].mode is not a file field');
  });
  it('accepts the known fields', () => {
    expect(() => assertFileObject({ path: 'a', content: 'x', encoding: 'utf8' }, 0)).not.toThrow();
    expect(() => assertFileObject({ path: 'a', sha256: 'f'.repeat(64), size: 1 }, 0)).not.toThrow();
  });
});
