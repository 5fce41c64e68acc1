import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Deletes the regular files directly in `dir` last written before `cutoff`; returns
 * how many. For crash leftovers (temp objects, upload spools): a write in progress
 * keeps touching its file, so a cutoff some minutes back spares every live write,
 * including another instance's sharing the directory. A missing directory is empty.
 */
export async function removeStaleFiles(dir: string, cutoff: Date): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.mtime >= cutoff) continue;
      await rm(path, { force: true });
      removed++;
    } catch (err) {
      // Renamed into place or disposed of meanwhile: nothing left to do.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}
