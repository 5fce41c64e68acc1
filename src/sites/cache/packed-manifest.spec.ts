import { createHash } from 'node:crypto';

import { PackedManifest } from './packed-manifest';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const entry = (path: string, size = 10, contentType = 'text/html; charset=utf-8') => ({ path, sha256: sha(path), size, contentType });

describe('PackedManifest', () => {
  const paths = ['index.html', 'about.html', 'blog', 'blog/index.html', 'héllo wörld.txt', '日本語/ページ.html', 'a', 'ab', 'abc', 'b', '😀.png', '\uffff.txt'];
  const manifest = PackedManifest.from(paths.map((p, i) => entry(p, i * 1000, i % 2 ? 'image/png' : 'text/html; charset=utf-8')));

  it('answers has/get for every path, with the entry it was given', () => {
    expect(manifest.size).toBe(paths.length);
    paths.forEach((p, i) => {
      expect(manifest.has(p)).toBe(true);
      expect(manifest.get(p)).toEqual({
        path: p,
        sha256: sha(p),
        size: i * 1000,
        contentType: i % 2 ? 'image/png' : 'text/html; charset=utf-8',
        etag: `"${sha(p)}"`,
      });
    });
  });

  it('finds no path it was not given: prefixes, extensions, case, empty', () => {
    for (const p of ['', 'ind', 'index.htm', 'index.html/', 'INDEX.HTML', 'blog/', 'abcd', 'c', 'zzz', '日本語', '\u0000']) {
      expect(manifest.has(p)).toBe(false);
      expect(manifest.get(p)).toBeUndefined();
    }
  });

  it('lists every file once through values()', () => {
    const listed = [...manifest.values()].map((f) => f.path);
    expect(listed.sort()).toEqual([...paths].sort());
    expect(manifest.values().next().value?.path).toBe([...paths].sort()[0]);
  });

  it('answers alike in its small form (plain arrays, below 64 files) and its large one (typed arrays)', () => {
    for (const n of [1, 2, 63, 64, 65, 500]) {
      const entries = Array.from({ length: n }, (_, i) => entry(`dir-${n}/file-${i}.html`, i + 1));
      const packed = PackedManifest.from(entries);
      for (const e of entries) expect(packed.get(e.path)).toEqual({ ...e, etag: `"${e.sha256}"` });
      expect(packed.has(`dir-${n}/file-${n}.html`)).toBe(false);
      expect([...packed.values()]).toHaveLength(n);
    }
  });

  it('keeps sizes past 4 GiB', () => {
    const big = PackedManifest.from([entry('huge.iso', 5 * 1024 ** 3), entry('small', 1), ...Array.from({ length: 70 }, (_, i) => entry(`f${i}`))]);
    expect(big.get('huge.iso')!.size).toBe(5 * 1024 ** 3);
    expect(big.get('small')!.size).toBe(1);
  });

  it('holds an empty deployment', () => {
    const empty = PackedManifest.from([]);
    expect(empty.size).toBe(0);
    expect(empty.has('index.html')).toBe(false);
    expect(empty.values().next().done).toBe(true);
  });

  it('refuses a duplicate path or a malformed hash (a corrupt manifest must not serve the wrong file)', () => {
    expect(() => PackedManifest.from([entry('a'), entry('a')])).toThrow('manifest lists a twice');
    expect(() => PackedManifest.from([{ ...entry('a'), sha256: 'xyz' }])).toThrow('manifest entry a has no valid sha256');
  });

  it('counts about 41 bytes a file plus its path, not hundreds', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => entry(`assets/chunk-${i}.js`, i, 'text/javascript; charset=utf-8'));
    const packed = PackedManifest.from(many);
    const pathChars = many.reduce((sum, e) => sum + e.path.length, 0);
    expect(packed.bytes).toBeLessThan(pathChars + 45 * many.length + 2000);
    expect(packed.bytes).toBeGreaterThan(pathChars + 40 * many.length);
    expect(packed.get('assets/chunk-9999.js')!.size).toBe(9999);
  });
});
