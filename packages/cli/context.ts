import type { Command } from 'commander';

import { StatichostApiError, StatichostClient, StatichostConnectionError } from '../sdk';
import { configPath, readConfig, type Resolved, resolveSettings } from './config';
import { type Cell, type Page, pageTable } from './format';

/** Where a command writes: the real process in production, anything in tests. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface GlobalFlags {
  token?: string;
  apiUrl?: string;
  json?: boolean;
}

/**
 * A failure the user can act on, found by the CLI itself (not an API answer):
 * printed as `Error: message`, exit code `exitCode` (2: the command line was wrong,
 * 1: anything else); under --json `{statusCode: null, error, message, code}`, the
 * API's error shape, so scripts read both kinds alike.
 */
export class CliError extends Error {
  readonly code: string;
  constructor(
    message: string,
    readonly exitCode = 1,
    code?: string,
  ) {
    super(message);
    this.name = 'CliError';
    this.code = code ?? (exitCode === 2 ? 'usage_error' : 'cli_error');
  }
}

/** The --json form of a failure the CLI found itself: the API's error shape with no HTTP status. */
export function cliErrorBody(message: string, code: string, exitCode: number): { statusCode: null; error: string; message: string; code: string } {
  return { statusCode: null, error: exitCode === 2 ? 'Usage Error' : 'CLI Error', message, code };
}

/** The package's version, from packages/cli (a checkout) or dist/cli (a build). */
function packageVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- which of two paths exists is known only at run time
      const pkg = require(path) as { name?: string; version?: string };
      if (pkg.name === 'statichost' && pkg.version) return pkg.version;
    } catch {
      // not at this depth
    }
  }
  return '0.0.0';
}

export const VERSION = packageVersion();

/** Everything a command needs: settings, an API client, and output helpers that honour --json. */
export class Context {
  constructor(
    readonly io: Io,
    readonly flags: GlobalFlags,
    readonly settings: Resolved,
    readonly configFile: string,
  ) {}

  static async of(cmd: Command, io: Io): Promise<Context> {
    const flags = cmd.optsWithGlobals<GlobalFlags>();
    const file = configPath(io.env);
    const stored = await readConfig(file);
    return new Context(io, flags, resolveSettings(flags, io.env, stored), file);
  }

  get json(): boolean {
    return this.flags.json === true;
  }

  /** An API client with the resolved token; a clear error when there is none. */
  client(): StatichostClient {
    if (!this.settings.token) {
      throw new CliError('No API token. Run `statichost login` (or `statichost signup`), set STATICHOST_TOKEN, or pass --token.', 1, 'no_token');
    }
    return new StatichostClient({ baseUrl: this.settings.apiUrl, token: this.settings.token, userAgent: `statichost-cli/${VERSION}` });
  }

  /** The result: JSON for scripts, or the human text for people. */
  print(data: unknown, human: () => string | undefined): void {
    if (this.json) {
      this.io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      return;
    }
    const text = human();
    if (text !== undefined && text !== '') this.io.stdout.write(`${text}\n`);
  }

  /** One page of a list: JSON for scripts, or a table of `headers` with a `row` per item for people. */
  printPage<T>(page: Page<T>, headers: string[], row: (item: T) => Cell[]): void {
    this.print(page, () => pageTable(page, headers, row));
  }

  /** Progress and notes for people: stderr, never mixed into --json output. */
  note(text: string): void {
    if (!this.json) this.io.stderr.write(`${text}\n`);
  }

  /** Something the user must see even in scripts (a file left out for safety): stderr, always. */
  warn(text: string): void {
    this.io.stderr.write(`Warning: ${text}\n`);
  }

  /** An unauthenticated client, for register and login. */
  publicClient(): StatichostClient {
    return new StatichostClient({ baseUrl: this.settings.apiUrl, userAgent: `statichost-cli/${VERSION}` });
  }
}

/** The message and exit code of anything a command threw; under --json, the API's error body unchanged (or the same shape). */
export function describeFailure(err: unknown, json: boolean): { text: string; exitCode: number } {
  if (err instanceof StatichostApiError) {
    const hint =
      err.status === 401
        ? ' Check the token (statichost login, STATICHOST_TOKEN or --token).'
        : err.code === 'insufficient_scope'
          ? ' The token lacks a scope: statichost login --scopes deploy,read,admin,delete creates one with more.'
          : '';
    const text = json ? JSON.stringify(err.body) : `Error: ${err.message} (HTTP ${err.status}, ${err.code})${hint}`;
    return { text, exitCode: 1 };
  }
  if (err instanceof StatichostConnectionError) {
    return {
      text: json ? JSON.stringify(cliErrorBody(err.message, 'connection_failed', 1)) : `Error: ${err.message}. Is STATICHOST_API_URL (or --api-url) right?`,
      exitCode: 1,
    };
  }
  if (err instanceof CliError) {
    return { text: json ? JSON.stringify(cliErrorBody(err.message, err.code, err.exitCode)) : `Error: ${err.message}`, exitCode: err.exitCode };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { text: json ? JSON.stringify(cliErrorBody(message, 'error', 1)) : `Error: ${message}`, exitCode: 1 };
}
