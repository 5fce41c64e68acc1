import { spawn } from 'node:child_process';
import { join } from 'node:path';

import type { BuildRunner, RunRequest, RunResult, SandboxPaths } from './runner';

/** After SIGTERM, how long a build's processes get to exit before SIGKILL (the issue allows 5 s in all). */
export const KILL_GRACE_MS = 2000;

/**
 * Runs a build's commands as child processes of the builder, with no isolation at all:
 * for development and tests only (select-runner refuses it in production). What it does
 * keep: the command sees exactly `request.env` (never the builder's process.env, which
 * holds the database URL and the keys), and an abort ends every process the command
 * started, not only the shell.
 */
export class ProcessRunner implements BuildRunner {
  readonly name = 'process' as const;

  sandboxPaths(checkoutDir: string, cacheDir: string): SandboxPaths {
    return { checkout: checkoutDir, cache: cacheDir };
  }

  run(request: RunRequest): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      if (request.signal.aborted) {
        resolve({ exitCode: null, signal: 'SIGKILL' });
        return;
      }
      // detached: the shell leads a process group of its own, so a kill of -pid reaches
      // what it started too (`npm run build` -> node -> esbuild workers, a `sleep` in a script).
      const child = spawn('/bin/sh', ['-c', request.command], {
        cwd: join(request.checkoutDir, request.workdir),
        env: request.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => request.onOutput(chunk, 'stdout'));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => request.onOutput(chunk, 'stderr'));

      let killTimer: NodeJS.Timeout | undefined;
      const killGroup = (signal: NodeJS.Signals) => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, signal);
        } catch {
          // The group is gone already.
        }
      };
      const onAbort = () => {
        killGroup('SIGTERM');
        killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
        killTimer.unref();
      };
      request.signal.addEventListener('abort', onAbort, { once: true });

      child.on('error', (err) => {
        request.signal.removeEventListener('abort', onAbort);
        if (killTimer) clearTimeout(killTimer);
        reject(err);
      });
      // Once the shell ends, nothing it started may live on (a `server &` left behind):
      // the group is killed, which also lets 'close' come (a leftover holding the pipes open delays it).
      let exited: RunResult | undefined;
      child.on('exit', (exitCode, signal) => {
        exited = { exitCode, signal };
        killGroup('SIGKILL');
      });
      // 'close', not 'exit', resolves: the output pipes are drained by then.
      child.on('close', (exitCode, signal) => {
        request.signal.removeEventListener('abort', onAbort);
        if (killTimer) clearTimeout(killTimer);
        resolve(exited ?? { exitCode, signal });
      });
    });
  }
}
