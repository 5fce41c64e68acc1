import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { collectFiles, isInside } from './local-files';

describe('collectFiles', () => {
  let base: string;
  let site: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'collect-'));
    site = join(base, 'site');
    await mkdir(join(site, 'docs'), { recursive: true });
    await writeFile(join(site, 'index.html'), 'home');
    await writeFile(join(site, 'docs', 'a.html'), 'a');
    await writeFile(join(base, 'secret.txt'), 'outside the site');
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('skips a symbolic link to a file outside the folder, and says so', async () => {
    await symlink(join(base, 'secret.txt'), join(site, 'leak.txt'));
    await symlink('../../secret.txt', join(site, 'docs', 'relative-leak.txt'));
    await symlink('/etc/hostname', join(site, 'host.txt'));
    const { files, skipped } = await collectFiles(site);
    expect(files.map((f) => f.path)).toEqual(['docs/a.html', 'index.html']);
    expect(skipped).toEqual([
      { path: 'docs/relative-leak.txt', reason: expect.stringContaining('outside the folder'), outside: true },
      { path: 'host.txt', reason: 'symbolic link to /etc/hostname, outside the folder', outside: true },
      { path: 'leak.txt', reason: `symbolic link to ${join(base, 'secret.txt')}, outside the folder`, outside: true },
    ]);
  });

  it('deploys a link to a file inside the folder as that file, read from its real path', async () => {
    await symlink('docs/a.html', join(site, 'alias.html'));
    await symlink(join(site, 'docs'), join(site, 'docs-link'));
    await symlink(join(site, 'gone.html'), join(site, 'broken.html'));
    const { files, skipped } = await collectFiles(site);
    expect(files).toEqual([
      { path: 'alias.html', absolutePath: join(site, 'docs', 'a.html'), size: 1 },
      { path: 'docs/a.html', absolutePath: join(site, 'docs', 'a.html'), size: 1 },
      { path: 'index.html', absolutePath: join(site, 'index.html'), size: 4 },
    ]);
    expect(skipped).toEqual([
      { path: 'broken.html', reason: 'broken symbolic link' },
      { path: 'docs-link', reason: 'symbolic link to a folder' },
    ]);
  });

  it('takes the real folder as the boundary when the folder itself is a link', async () => {
    await symlink(site, join(base, 'dist'));
    await symlink(join(site, 'index.html'), join(site, 'home.html'));
    const { files } = await collectFiles(join(base, 'dist'));
    expect(files.map((f) => f.path)).toEqual(['docs/a.html', 'home.html', 'index.html']);
  });

  it('isInside compares paths, not prefixes', () => {
    expect(isInside('/a/site', '/a/site/x')).toBe(true);
    expect(isInside('/a/site', '/a/site')).toBe(true);
    expect(isInside('/a/site', '/a/site-2/x')).toBe(false);
    expect(isInside('/a/site', '/a/x')).toBe(false);
    expect(isInside('/a/site', '/a/site/..x')).toBe(true);
  });
});
