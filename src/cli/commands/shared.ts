import { InvalidArgumentError, type Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import type { Io } from '../context';

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
