import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Test fixture: a new empty directory (named `<prefix>…` under the OS temp dir) for each
 * test of the enclosing describe, removed after it. A getter, as the directory only
 * exists once beforeEach has run.
 */
export function useTempDir(prefix: string): () => string {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  return () => dir;
}
