import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Reads a secret kept in `file`, or creates it with `generate()` the first time.
 *
 * The file is written whole to a private temporary name and then hard-linked into
 * place: `link` fails when the target exists, so instances starting together on one
 * DATA_DIR never see a half-written file and all end up with the same secret.
 * The file is readable by its owner only (0600).
 */
export async function loadOrCreateSecret(file: string, generate: () => string): Promise<string> {
  const existing = await readSecret(file);
  if (existing !== undefined) return existing;

  const value = generate();
  if (!value || /\s/.test(value)) throw new Error(`refusing to store an empty secret or one with whitespace in ${file}`);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${value}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file);
    return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another instance won the race: use its secret.
    const winner = await readSecret(file);
    if (winner === undefined) throw new Error(`secret file ${file} vanished while it was being created`, { cause: err });
    return winner;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function readSecret(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const value = text.trim();
  if (!value) throw new Error(`secret file ${file} is empty: delete it to generate a new secret, or write one into it`);
  // A secret copied in by hand may have been left readable by others; tighten it rather than fail.
  const { mode } = await stat(file);
  if ((mode & 0o077) !== 0) await chmod(file, 0o600).catch(() => undefined);
  return value;
}
