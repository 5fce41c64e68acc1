import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cloneRef } from '../../src/builds/pipeline/git-clone';
import { type GitServer, startGitServer } from '../helpers/git-server';

/**
 * The builder's checkout against a real Git server (git http-backend): which commit a
 * ref names. A branch is what a push to it built and published, so nothing else named
 * like it may stand in for it.
 */
describe('cloneRef (git over smart HTTP)', () => {
  let git: GitServer;
  let scratch: string;
  let mainSha: string;
  let tagSha: string;
  let n = 0;

  beforeAll(async () => {
    git = await startGitServer();
    scratch = await mkdtemp(join(tmpdir(), 'git-clone-'));
    mainSha = git.createRepo('site', { 'index.html': 'reviewed main' }, { message: 'reviewed main' });
    // A commit that never reached main, and a tag called "main" pointing at it: anyone who
    // may push tags but not to the protected branch can make one.
    tagSha = git.commit('site', { 'index.html': 'unreviewed' }, { branch: 'side', message: 'unreviewed' });
    git.setRef('site', 'refs/tags/main', tagSha);
    git.setRef('site', 'refs/tags/v1', tagSha);
  });
  afterAll(async () => {
    await git?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const clone = async (ref: string) => {
    const dir = join(scratch, `checkout-${++n}`);
    const log: string[] = [];
    const commit = await cloneRef({
      repository: git.url('site'),
      ref,
      dir,
      access: { allowHttp: true, accessToken: null, home: join(scratch, `home-${n}`), path: process.env.PATH ?? '' },
      signal: new AbortController().signal,
      log: (line) => log.push(line),
    });
    return { commit, log, index: await readFile(join(dir, 'index.html'), 'utf8') };
  };

  it('checks out the branch, not a tag of the same name', async () => {
    const { commit, index, log } = await clone('main');
    expect(commit).toMatchObject({ sha: mainSha, branch: 'main', message: 'reviewed main' });
    expect(index).toBe('reviewed main');
    expect(log.join('\n')).toContain(`Checked out ${mainSha.slice(0, 12)} (branch main)`);
  });

  it('takes refs/heads/<name> as that branch', async () => {
    const { commit } = await clone('refs/heads/main');
    expect(commit).toMatchObject({ sha: mainSha, branch: 'main' });
  });

  it('still checks out a tag and a commit id, with no branch', async () => {
    expect((await clone('v1')).commit).toMatchObject({ sha: tagSha, branch: null });
    expect((await clone(tagSha)).commit).toMatchObject({ sha: tagSha, branch: null });
  });
});
