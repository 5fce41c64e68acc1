import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

import { type Command, InvalidArgumentError } from 'commander';

import { CliError, type Io } from '../context';

export const SCOPES = ['deploy', 'read', 'delete', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** `--scopes deploy,read` → the scopes, refusing an empty or unknown one (exit code 2). */
export function parseScopes(list: string): Scope[] {
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0)
    throw new CliError(`--scopes: unknown scope ${unknown.join(', ') || '(none given)'}; use ${SCOPES.join(', ')}`, 2);
  return scopes as Scope[];
}

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/** --page and --limit, checked here and again by the API. */
export function pageOptions(cmd: Command, defaultLimit = 20): Command {
  return cmd.option('--page <n>', 'page number', positiveInt, 1).option('--limit <n>', 'items per page (at most 100)', positiveInt, defaultLimit);
}

/** Asks on a terminal; elsewhere (CI, pipes) there is nobody to ask, so the answer is no. */
export async function confirm(io: Io, question: string): Promise<boolean> {
  if (!io.stdin.isTTY) return false;
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** One line from a person at a terminal. */
export async function ask(io: Io, question: string): Promise<string> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** A secret typed at a terminal, not echoed. */
export async function askHidden(io: Io, question: string): Promise<string> {
  io.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input: io.stdin, output: muted, terminal: true });
  try {
    return await rl.question('');
  } finally {
    rl.close();
    io.stderr.write('\n');
  }
}

/** All of stdin (a pipe), without the final line break: `echo "$PW" | statichost login`. */
export async function readStdin(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk.toString();
  return text.replace(/\r?\n$/, '');
}

/**
 * A password: from `envName`, else typed (hidden) on a terminal, else read from
 * stdin. Never from the command line, where `ps` and shell history would show it.
 */
export async function readSecret(io: Io, envName: string, prompt: string): Promise<string> {
  const fromEnv = io.env[envName];
  const secret = fromEnv !== undefined ? fromEnv : io.stdin.isTTY ? await askHidden(io, prompt) : await readStdin(io);
  if (!secret) throw new CliError(`No password: type it at the prompt, pipe it on stdin, or set ${envName}`, 2, 'no_password');
  return secret;
}
