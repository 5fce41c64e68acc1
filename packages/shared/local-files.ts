import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

import { mapLimit } from './map-limit';

/*
 * The files of a local folder as every digest-first deploy sends them: the CLI and SDK
 * (packages/sdk re-exports these) and the builder (src/builds/pipeline), so a build and
 * a CLI deploy of the same folder deploy the same paths and hashes.
 */

/** A file of a local directory, ready for a digest-first deploy. */
export interface LocalFile {
  /** Path in the site: relative, `/`-separated. */
  path: string;
  absolutePath: string;
  size: number;
  sha256: string;
}

export interface CollectedFiles {
  root: string;
  files: { path: string; absolutePath: string; size: number }[];
  /** Paths left out, relative to the root, with why; `outside`: a symbolic link out of the folder (warn about it). */
  skipped: { path: string; reason: string; outside?: boolean }[];
}

/**
 * What a deploy of a directory leaves out, as Netlify's and Vercel's CLIs do:
 * hidden files and folders (except `.well-known`, which sites need for ACME,
 * security.txt and app links), `node_modules`, and symbolic links to folders.
 * Symbolic links to files outside the folder are left out too (see collectFiles).
 */
export function isIgnored(name: string): boolean {
  return (name.startsWith('.') && name !== '.well-known') || name === 'node_modules';
}

/** True when `path` is `root` or inside it (both real paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The files of `target`: a directory walked recursively, or one file deployed under its own name.
 *
 * A symbolic link is deployed as the file it points to only when that file is inside
 * the folder: a link out of it (`ln -s ~/.ssh/id_ed25519 key.txt`, `ln -s /etc/hostname`)
 * would publish a file its owner never meant to put in the site, so it is skipped with
 * reason `outside` and the caller warns. The file read later is the resolved real
 * path, not the link, so re-pointing the link after the check changes nothing.
 */
export async function collectFiles(target: string): Promise<CollectedFiles> {
  const root = resolve(target);
  const info = await stat(root);
  if (info.isFile()) return { root, files: [{ path: basename(root), absolutePath: await realpath(root), size: info.size }], skipped: [] };
  if (!info.isDirectory()) throw new Error(`${target} is neither a file nor a directory`);
  // The folder itself may be reached through a link (dist -> build/out): its real path is the boundary.
  const realRoot = await realpath(root);
  const files: CollectedFiles['files'] = [];
  const skipped: CollectedFiles['skipped'] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const absolutePath = join(dir, entry.name);
      const path = relative(root, absolutePath).split(sep).join('/');
      if (isIgnored(entry.name)) {
        skipped.push({ path, reason: entry.name === 'node_modules' ? 'node_modules' : 'hidden' });
        continue;
      }
      if (entry.isSymbolicLink()) {
        const real = await realpath(absolutePath).catch(() => undefined);
        const target = real ? await stat(real).catch(() => undefined) : undefined;
        if (!real || !target) {
          skipped.push({ path, reason: 'broken symbolic link' });
        } else if (!isInside(realRoot, real)) {
          skipped.push({ path, reason: `symbolic link to ${real}, outside the folder`, outside: true });
        } else if (!target.isFile()) {
          skipped.push({ path, reason: target.isDirectory() ? 'symbolic link to a folder' : 'not a regular file' });
        } else {
          files.push({ path, absolutePath: real, size: target.size });
        }
        continue;
      }
      if (entry.isDirectory()) await walk(absolutePath);
      else if (entry.isFile()) files.push({ path, absolutePath, size: (await stat(absolutePath)).size });
      else skipped.push({ path, reason: 'not a regular file' });
    }
  };
  await walk(root);
  return { root, files, skipped };
}

/** SHA-256 of a file: read whole when small (a stream per small file costs more than its bytes), streamed otherwise. */
export async function sha256OfFile(path: string, size?: number): Promise<string> {
  const hash = createHash('sha256');
  if (size !== undefined && size <= 1024 * 1024) return hash.update(await readFile(path)).digest('hex');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Hashes every file (a few at a time); `onFile` after each, for progress. */
export async function hashFiles(files: CollectedFiles['files'], onFile?: (file: LocalFile) => void): Promise<LocalFile[]> {
  return mapLimit(files, 16, async (f) => {
    const local = { ...f, sha256: await sha256OfFile(f.absolutePath, f.size) };
    onFile?.(local);
    return local;
  });
}
