import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { useTempDir } from '../../test/helpers/temp-dir';
import { loadOrCreateSecret } from './secret-file';

describe('loadOrCreateSecret', () => {
  const dir = useTempDir('secret-file-');

  it('creates the file once, readable by its owner only, and reuses it', async () => {
    const file = join(dir(), 'nested', 'jwt.secret');
    let calls = 0;
    const generate = () => `secret-${++calls}`;
    expect(await loadOrCreateSecret(file, generate)).toBe('secret-1');
    expect(await loadOrCreateSecret(file, generate)).toBe('secret-1');
    expect(calls).toBe(1);
    expect(await readFile(file, 'utf8')).toBe('secret-1\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('gives every concurrent caller the same secret and leaves no temporary files', async () => {
    const file = join(dir(), 'key');
    let n = 0;
    const values = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSecret(file, () => `value-${n++}`)));
    expect(new Set(values).size).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(`${values[0]}\n`);
    expect(await readdir(dir())).toEqual(['key']);
  });

  it('reads a secret written by hand, trimmed, and makes the file private', async () => {
    const file = join(dir(), 'key');
    await writeFile(file, '  handwritten \n');
    await chmod(file, 0o644);
    expect(await loadOrCreateSecret(file, () => 'generated')).toBe('handwritten');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses an empty file instead of silently replacing it', async () => {
    const file = join(dir(), 'key');
    await writeFile(file, '\n');
    await expect(loadOrCreateSecret(file, () => 'generated')).rejects.toThrow(/is empty/);
  });

  it('refuses to store an empty generated secret', async () => {
    await expect(loadOrCreateSecret(join(dir(), 'key'), () => '')).rejects.toThrow(/empty/);
  });
});
