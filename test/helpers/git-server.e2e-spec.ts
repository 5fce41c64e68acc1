import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { ForgeApiServer } from '../forges/forge-api-server';
import { type GitServer, startGitServer } from './git-server';

// The clones run asynchronously: the server answers from this same process.
const run = promisify(execFile);
const quiet = { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } };

describe('test/helpers/git-server', () => {
  let server: GitServer;
  let dir: string;
  beforeAll(async () => {
    server = await startGitServer();
    dir = mkdtempSync(join(tmpdir(), 'git-clone-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves branches over smart HTTP', async () => {
    server.createRepo('site', { 'index.html': 'one' });
    const sha = server.commit('site', { 'index.html': 'two' }, { branch: 'feature' });
    await run('git', ['clone', '-q', '--depth', '1', '-b', 'feature', server.url('site'), join(dir, 'a')], quiet);
    expect((await run('git', ['-C', join(dir, 'a'), 'rev-parse', 'HEAD'])).stdout.trim()).toBe(sha);
    expect(readFileSync(join(dir, 'a', 'index.html'), 'utf8')).toBe('two');
  });

  it('asks for the token of a private repository', async () => {
    server.createRepo('private', { 'index.html': 'secret' }, { token: 'tok123' });
    await expect(run('git', ['clone', '-q', server.url('private'), join(dir, 'b')], quiet)).rejects.toThrow(
      /401|Authentication failed|could not read Username/,
    );
    const header = `http.extraHeader=Authorization: Basic ${Buffer.from('x-access-token:tok123').toString('base64')}`;
    await run('git', ['-c', header, 'clone', '-q', server.url('private'), join(dir, 'c')], quiet);
    expect(readFileSync(join(dir, 'c', 'index.html'), 'utf8')).toBe('secret');
  });

  it('plays the forge API too when given its handler: owner/repo clones and /api/* on one port', async () => {
    const api = new ForgeApiServer();
    const both = await startGitServer({ api: api.handler });
    try {
      const sha = both.createRepo('acme/site', { 'index.html': 'owned' }, { token: 'tok456' });
      const header = `http.extraHeader=Authorization: Basic ${Buffer.from('x-access-token:tok456').toString('base64')}`;
      await run('git', ['-c', header, 'clone', '-q', both.url('acme/site'), join(dir, 'd')], quiet);
      expect((await run('git', ['-C', join(dir, 'd'), 'rev-parse', 'HEAD'])).stdout.trim()).toBe(sha);
      const res = await fetch(`${both.baseUrl}/api/v1/repos/acme/site/statuses/${sha}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'pending', context: 'statichost/site' }),
      });
      expect(res.status).toBe(201);
      expect(api.statuses).toEqual([{ sha, body: { state: 'pending', context: 'statichost/site' } }]);
      expect(both.requests.some((r) => r.startsWith('POST /api/'))).toBe(false);
    } finally {
      await both.close();
    }
  });
});
