import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ProcessRunner } from './process-runner';
import type { RunRequest } from './runner';

/** Real processes: the runner's whole job is what the kernel does with them. */
describe('ProcessRunner', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'process-runner-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const run = (command: string, extra: Partial<RunRequest> = {}) => {
    let out = '';
    const done = new ProcessRunner().run({
      command,
      checkoutDir: dir,
      workdir: '',
      cacheDir: dir,
      env: { PATH: '/usr/bin:/bin' },
      signal: new AbortController().signal,
      onOutput: (chunk) => (out += chunk),
      ...extra,
    });
    return { done, output: () => out };
  };

  // Running, not a zombie: who reaps a killed orphan (init, a container's pid 1) is not the runner's to decide.
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  it('runs the command by sh -c in the workdir and reports its exit code and output', async () => {
    await writeFile(join(dir, 'hello.txt'), 'hello from the checkout');
    const ok = run('cat hello.txt; echo " and stderr" >&2');
    expect(await ok.done).toEqual({ exitCode: 0, signal: null });
    expect(ok.output()).toContain('hello from the checkout');
    expect(ok.output()).toContain('and stderr');
    expect(await run('exit 3').done).toEqual({ exitCode: 3, signal: null });
  });

  it('gives the command exactly request.env: nothing of the builder’s own environment', async () => {
    process.env.BUILDER_SECRET_FOR_TEST = 'from-the-builder';
    try {
      const env = run('echo "secret=[${BUILDER_SECRET_FOR_TEST}] mine=[${MINE}]"; env | sort', { env: { PATH: '/usr/bin:/bin', MINE: 'given' } });
      await env.done;
      expect(env.output()).toContain('secret=[] mine=[given]');
      expect(env.output()).not.toContain('from-the-builder');
      expect(env.output()).not.toContain('DATABASE_URL');
    } finally {
      delete process.env.BUILDER_SECRET_FOR_TEST;
    }
  });

  it('an abort kills the whole process group, a sleeping grandchild included, within 5 s', async () => {
    const controller = new AbortController();
    // The shell starts a grandchild that ignores SIGTERM, prints its pid, then waits.
    const job = run(`sh -c 'trap "" TERM; sleep 100' & echo "grandchild=$!"; wait`, { signal: controller.signal });
    const started = Date.now();
    while (!/grandchild=\d+/.test(job.output())) {
      if (Date.now() - started > 10_000) throw new Error(`no pid printed: ${job.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const pid = Number(/grandchild=(\d+)/.exec(job.output())![1]);
    expect(alive(pid)).toBe(true);
    const abortedAt = Date.now();
    controller.abort();
    const result = await job.done;
    expect(result.exitCode).toBeNull();
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
    expect(Date.now() - abortedAt).toBeLessThan(5000);
  });

  it('leaves nothing running once the command ends (a process sent to the background is killed)', async () => {
    const job = run('sleep 100 >/dev/null 2>&1 & echo "bg=$!"');
    expect(await job.done).toEqual({ exitCode: 0, signal: null });
    const pid = Number(/bg=(\d+)/.exec(job.output())![1]);
    // SIGKILL is delivered at once, but the zombie's reaping by init may lag a moment.
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
  });

  it('an already aborted signal runs nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const job = run('touch ran.txt', { signal: controller.signal });
    expect((await job.done).exitCode).toBeNull();
    await expect(import('node:fs/promises').then((fs) => fs.access(join(dir, 'ran.txt')))).rejects.toThrow();
  });

  it('sees its own checkout and cache as the sandbox paths (no container: host paths)', () => {
    expect(new ProcessRunner().sandboxPaths('/a/checkout', '/a/cache')).toEqual({ checkout: '/a/checkout', cache: '/a/cache' });
  });
});
