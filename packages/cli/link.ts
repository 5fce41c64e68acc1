import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { CliError } from './context';

/**
 * The link file: which project a folder deploys to, as Vercel's `.vercel/project.json`.
 * It lives in the deployed folder (hidden, so never deployed itself); the next
 * `statichost deploy <folder>` goes to the same project without --project, and
 * `promote`, `archive`, `gate`, `domain` find the project from the current folder.
 */
export interface ProjectLink {
  project_slug: string;
  /** Null when the token could not read the project's id (a deploy-only token). */
  project_id: string | null;
  workspace_id: string | null;
  api_url: string;
}

export const LINK_DIR = '.statichost';
export const LINK_FILE = join(LINK_DIR, 'project.json');

export function linkPath(folder: string): string {
  return join(folder, LINK_FILE);
}

export async function readLink(folder: string): Promise<ProjectLink | undefined> {
  let text: string;
  try {
    text = await readFile(linkPath(folder), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
  try {
    const link = JSON.parse(text) as Partial<ProjectLink>;
    if (typeof link?.project_slug !== 'string' || link.project_slug === '') throw new Error('no project_slug');
    return { project_slug: link.project_slug, project_id: link.project_id ?? null, workspace_id: link.workspace_id ?? null, api_url: link.api_url ?? '' };
  } catch {
    throw new CliError(
      `${linkPath(folder)} is not a valid link file; delete it (the next deploy links the folder again) or pass --project`,
      1,
      'invalid_link_file',
    );
  }
}

export async function writeLink(folder: string, link: ProjectLink): Promise<void> {
  await mkdir(join(folder, LINK_DIR), { recursive: true });
  await writeFile(linkPath(folder), `${JSON.stringify(link, null, 2)}\n`);
  // As Vercel does: say what the folder is, for whoever finds it.
  await writeFile(
    join(folder, LINK_DIR, 'README.txt'),
    'Written by `statichost deploy`: project.json names the project this folder deploys to.\n' +
      'It holds no secret. Delete the folder to deploy to another project (or pass --project).\n',
  );
}
