import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `statichost login` remembers. */
export interface StoredConfig {
  token?: string;
  apiUrl?: string;
}

export const DEFAULT_API_URL = 'http://localhost:3000';

/**
 * Where the config file lives: $STATICHOST_CONFIG, else the platform's user config
 * folder (%APPDATA% on Windows, ~/Library/Application Support on macOS,
 * $XDG_CONFIG_HOME or ~/.config elsewhere) + statichost/config.json.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.STATICHOST_CONFIG) return env.STATICHOST_CONFIG;
  const home = env.HOME || homedir();
  const base =
    platform === 'win32'
      ? env.APPDATA || join(home, 'AppData', 'Roaming')
      : platform === 'darwin'
        ? join(home, 'Library', 'Application Support')
        : env.XDG_CONFIG_HOME || join(home, '.config');
  return join(base, 'statichost', 'config.json');
}

export async function readConfig(path: string): Promise<StoredConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as StoredConfig;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    throw new Error(`${path} is not valid JSON; fix or delete it, then run statichost login again`);
  }
}

/** Writes the file readable by its owner only (it holds a token): folder 0700, file 0600. */
export async function writeConfig(path: string, config: StoredConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies to new files only; an older file may be wider.
  await chmod(path, 0o600);
}

export async function deleteConfig(path: string): Promise<void> {
  await rm(path, { force: true });
}

export interface Resolved {
  token?: string;
  apiUrl: string;
  /** Where the token came from, for messages. */
  tokenSource?: 'flag' | 'env' | 'config';
}

/** Flags win over the environment, which wins over the config file. */
export function resolveSettings(flags: { token?: string; apiUrl?: string }, env: NodeJS.ProcessEnv, stored: StoredConfig): Resolved {
  const token = flags.token
    ? { token: flags.token, tokenSource: 'flag' as const }
    : env.STATICHOST_TOKEN
      ? { token: env.STATICHOST_TOKEN, tokenSource: 'env' as const }
      : stored.token
        ? { token: stored.token, tokenSource: 'config' as const }
        : {};
  const apiUrl = (flags.apiUrl || env.STATICHOST_API_URL || stored.apiUrl || DEFAULT_API_URL).replace(/\/+$/, '');
  return { ...token, apiUrl };
}
