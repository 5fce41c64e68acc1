import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { useTempDir } from '../../test/helpers/temp-dir';
import { removeStaleFiles } from './stale-files';

describe('removeStaleFiles', () => {
  const dir = useTempDir('stale-files-');

  it('removes files last written before the cutoff and keeps newer ones and folders', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 60 * 60 * 1000);
    for (const name of ['old-1', 'old-2']) {
      await writeFile(join(dir(), name), 'x');
      await utimes(join(dir(), name), old, old);
    }
    await writeFile(join(dir(), 'fresh'), 'x');
    await mkdir(join(dir(), 'sub'));
    await utimes(join(dir(), 'sub'), old, old);
    expect(await removeStaleFiles(dir(), new Date(now.getTime() - 15 * 60 * 1000))).toBe(2);
    expect((await readdir(dir())).sort()).toEqual(['fresh', 'sub']);
  });

  it('treats a missing directory as empty', async () => {
    expect(await removeStaleFiles(join(dir(), 'nope'), new Date())).toBe(0);
  });
});
