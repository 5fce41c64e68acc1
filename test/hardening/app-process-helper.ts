import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface AppProcess {
  child: ChildProcess;
  baseUrl: string;
  /** The hard way down: no shutdown hook, no pending write finishes. */
  crash(): Promise<void>;
}

/** Starts test/hardening/app-process.ts with `env` and waits until it listens. */
export async function startAppProcess(env: Record<string, string>): Promise<AppProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'app-process.ts')], {
    cwd: join(__dirname, '..', '..'),
    env: { PATH: process.env.PATH, NODE_ENV: 'test', SWEEP_INTERVAL_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) resolve(JSON.parse(line).port);
    });
    child.on('exit', (code) => reject(new Error(`app process exited with ${code}\n${stderr}`)));
    setTimeout(() => reject(new Error(`app process did not start in 90 s\n${stderr}`)), 90_000).unref();
  });
  return {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    crash: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
