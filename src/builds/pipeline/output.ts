import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';

import { type CollectedFiles, collectFiles, isInside } from '../../../packages/shared/local-files';
import { BuildFailure } from './types';

/** The problem with a relative folder setting (rootDirectory, outputDirectory), or undefined when it stays inside the checkout. */
export function relativeFolderProblem(folder: string): string | undefined {
  if (folder === '') return undefined;
  if (isAbsolute(folder) || folder.startsWith('/')) return 'is absolute; give it relative to the repository';
  if (folder.includes('\\')) return 'contains a backslash; separate folders with "/"';
  if (/[\u0000-\u001f\u007f]/.test(folder)) return 'contains a control character';
  if (folder.split('/').includes('..')) return 'has a ".." segment';
  return undefined;
}

/**
 * The output folder's files, as the CLI deploys a folder (packages/shared/local-files:
 * hidden files but `.well-known` and `node_modules` left out). The folder must be in
 * the checkout, also once links are resolved (a build may replace `dist` by a link to
 * `/`); inside it, a symbolic link out of the folder is left out (and named in the log),
 * never followed: the builder reads these files outside any sandbox.
 */
export async function collectOutput(checkoutDir: string, siteFolder: string, outputDirectory: string): Promise<CollectedFiles & { dir: string }> {
  const label = outputDirectory === '' ? 'the site folder' : `output folder "${outputDirectory}"`;
  const problem = relativeFolderProblem(outputDirectory);
  if (problem) throw new BuildFailure(`outputDirectory "${outputDirectory}" ${problem}`);
  const dir = join(checkoutDir, siteFolder, outputDirectory);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new BuildFailure(`${label} does not exist after the build: set outputDirectory in the project's Git settings to the folder the build writes`);
  }
  if (!isInside(await realpath(checkoutDir), await realpath(dir))) throw new BuildFailure(`${label} is a link to outside the repository`);
  const collected = await collectFiles(dir);
  if (collected.files.length === 0) throw new BuildFailure(`${label} is empty: the build wrote no files to deploy`);
  return { ...collected, dir };
}

/** With no framework detected and no outputDirectory set: the first of `candidates` the build wrote. */
export async function findOutputFolder(siteDir: string, candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    if ((await stat(join(siteDir, candidate)).catch(() => undefined))?.isDirectory()) return candidate;
  }
  return undefined;
}
