import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { COMPILED_CLI_ENV } from '../helpers/compiled-cli';

export const BIN = join(__dirname, '..', '..', 'bin', 'statichost.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `statichost` bin in a child process, with only the environment
 * given (plus PATH), so nothing from the test run leaks into it. Under jest that is the
 * bin with the clients compiled once for the run (test/helpers/compiled-cli.ts), as an
 * installed package runs it, instead of compiling them again in every command.
 */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  options: { cwd?: string; timeoutMs?: number; /** Written to stdin (a pipe, as `echo pw | statichost login`), then closed. */ input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [process.env[COMPILED_CLI_ENV] ?? BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, ...env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`statichost ${args.join(' ')} did not finish in time\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
