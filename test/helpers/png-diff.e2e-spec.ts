import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PNG } from 'pngjs';

import { PngDiffer } from './png-diff';
import { useTempDir } from './temp-dir';

/** The visual suite's comparisons, which now run in a thread of their own: each outcome it must tell apart. */
describe('PngDiffer', () => {
  let differ: PngDiffer;
  const dir = useTempDir('png-diff-');
  beforeAll(() => {
    differ = new PngDiffer();
  });
  afterAll(() => differ.close());

  /** A `width` × `height` PNG, white, with the pixels of `dark` black. */
  function png(width: number, height: number, dark: [number, number][] = []): Buffer {
    const image = new PNG({ width, height });
    image.data.fill(255);
    for (const [x, y] of dark) image.data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
    return PNG.sync.write(image);
  }

  it('finds no difference between two equal images', async () => {
    const reference = join(dir(), 'same.png');
    writeFileSync(reference, png(40, 30, [[3, 4]]));
    await expect(differ.compare(reference, png(40, 30, [[3, 4]]), { threshold: 0.1, maxShare: 0 })).resolves.toEqual({
      kind: 'pixels',
      differing: 0,
      share: 0,
      diff: undefined,
    });
  });

  it('counts the differing pixels, and draws them only past the share allowed', async () => {
    const reference = join(dir(), 'changed.png');
    writeFileSync(reference, png(40, 30));
    const actual = png(40, 30, [
      [1, 1],
      [20, 10],
      [39, 29],
    ]);
    const within = await differ.compare(reference, actual, { threshold: 0.1, maxShare: 0.01 });
    expect(within).toEqual({ kind: 'pixels', differing: 3, share: 3 / 1200, diff: undefined });
    const beyond = await differ.compare(reference, actual, { threshold: 0.1, maxShare: 0.001 });
    expect(beyond).toMatchObject({ kind: 'pixels', differing: 3 });
    const diff = PNG.sync.read((beyond as { diff: Buffer }).diff);
    expect([diff.width, diff.height]).toEqual([40, 30]);
  });

  it('tells a different size apart from different pixels', async () => {
    const reference = join(dir(), 'size.png');
    writeFileSync(reference, png(40, 30));
    await expect(differ.compare(reference, png(41, 30), { threshold: 0.1, maxShare: 0.01 })).resolves.toEqual({
      kind: 'size',
      size: '41×30',
      referenceSize: '40×30',
    });
  });

  it('fails with the reference named when it cannot be read', async () => {
    await expect(differ.compare(join(dir(), 'missing.png'), png(4, 4), { threshold: 0.1, maxShare: 0 })).rejects.toThrow(/missing\.png/);
  });
});
