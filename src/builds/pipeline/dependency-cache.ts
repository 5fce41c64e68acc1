import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

import * as tar from 'tar';

import type { StorageProvider } from '../../storage/storage.provider';
import type { PackageManager } from './types';

/** The folders of the cache directory each package manager fills (what is saved and restored). */
export const CACHE_FOLDERS: Record<PackageManager, string[]> = {
  npm: ['npm'],
  pnpm: ['pnpm-store'],
  yarn: ['yarn', 'yarn-global'],
};

/**
 * The variables that point a package manager's download cache at `cache` (the cache
 * directory as the command sees it): npm's cache, pnpm's store, Yarn 1's cache folder
 * and Yarn 2+'s global cache. Set for every build, whichever manager it uses.
 */
export function cacheEnv(cache: string): Record<string, string> {
  return {
    npm_config_cache: `${cache}/npm`,
    npm_config_store_dir: `${cache}/pnpm-store`,
    pnpm_config_store_dir: `${cache}/pnpm-store`,
    YARN_CACHE_FOLDER: `${cache}/yarn`,
    YARN_GLOBAL_FOLDER: `${cache}/yarn-global`,
  };
}

/**
 * `build-cache/<projectId>/<sha256>.tar.gz`, the hash over the lock file's bytes, the
 * package manager and the Node major: a changed lock file, another manager or another
 * Node (whose native modules differ) starts from an empty cache, never a wrong one.
 */
export function cacheKey(projectId: string, lockFile: Buffer, packageManager: PackageManager, nodeMajor: string): string {
  const hash = createHash('sha256').update(lockFile).update('\0').update(packageManager).update('\0').update(nodeMajor).digest('hex');
  return `build-cache/${projectId}/${hash}.tar.gz`;
}

/** `22` of `v22.3.0`, `22.x`, `>=22`, `lts/22`; the whole text when it names no major. */
export function nodeMajorOf(version: string): string {
  return /(\d+)/.exec(version)?.[1] ?? version;
}

export async function lockFileHashKey(projectId: string, lockFilePath: string, packageManager: PackageManager, nodeMajor: string): Promise<string> {
  return cacheKey(projectId, await readFile(lockFilePath), packageManager, nodeMajor);
}

/** Restores the cache under `key` into `cacheDir`; false when there is none yet. */
export async function restoreCache(storage: StorageProvider, key: string, cacheDir: string, scratch: string): Promise<boolean> {
  const object = await storage.get(key);
  if (!object) return false;
  await mkdir(cacheDir, { recursive: true });
  const file = join(scratch, 'cache-restore.tar.gz');
  try {
    await pipeline(object.stream, createWriteStream(file));
    // tar refuses entries that would land outside cacheDir (absolute, `..`, through a link).
    await tar.x({ file, cwd: cacheDir, strict: true, preservePaths: false, noChmod: true });
  } finally {
    await rm(file, { force: true });
  }
  return true;
}

/** Saves the package manager's folders of `cacheDir` under `key`; the archive's size, 0 when there was nothing to save. */
export async function saveCache(storage: StorageProvider, key: string, cacheDir: string, packageManager: PackageManager, scratch: string): Promise<number> {
  const present: string[] = [];
  for (const folder of CACHE_FOLDERS[packageManager]) {
    if (
      await stat(join(cacheDir, folder)).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      present.push(folder);
  }
  if (present.length === 0) return 0;
  const file = join(scratch, 'cache-save.tar.gz');
  try {
    // portable: no owner names or uids of the builder; links are stored as links, never followed.
    await tar.c({ file, cwd: cacheDir, gzip: true, portable: true, follow: false }, present);
    const { size } = await stat(file);
    await storage.put(key, createReadStream(file), size);
    return size;
  } finally {
    await rm(file, { force: true });
  }
}
