import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { useTempDir } from '../../test/helpers/temp-dir';
import { isIgnored } from '../sdk';
import { LINK_DIR, linkPath, readLink, writeLink } from './link';

describe('the link file (.statichost/project.json)', () => {
  const dir = useTempDir('cli-link-');

  it('round-trips, and a folder without one is unlinked', async () => {
    expect(await readLink(dir())).toBeUndefined();
    const link = { project_slug: 'my-site', project_id: 'proj_x', workspace_id: 'ws_y', api_url: 'http://a' };
    await writeLink(dir(), link);
    expect(await readLink(dir())).toEqual(link);
    expect(JSON.parse(await readFile(linkPath(dir()), 'utf8'))).toEqual(link);
    expect(await readFile(join(dir(), LINK_DIR, 'README.txt'), 'utf8')).toContain('holds no secret');
  });

  it('is never deployed: its folder is hidden', () => {
    expect(isIgnored(LINK_DIR)).toBe(true);
  });

  it('names a broken file instead of guessing', async () => {
    await mkdir(join(dir(), LINK_DIR));
    await writeFile(linkPath(dir()), '{"project_id": 1}');
    await expect(readLink(dir())).rejects.toThrow(/project\.json is not a valid link file; delete it/);
  });
});
