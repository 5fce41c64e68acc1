/**
 * The checks of a project's Git settings and environment variables beside the
 * repository URL (./repository-url.ts), as pure functions: each returns why a value
 * is refused, or null. The DTOs turn them into validators; the builds module can
 * run them too.
 */

/** Longest branch name taken (git has no limit; refs are file names, and 255 bytes is a common file name limit). */
export const MAX_BRANCH = 255;
/** Longest install/build command. */
export const MAX_COMMAND_BYTES = 4096;
/** Longest access token (forges' tokens are 40 to a few hundred characters). */
export const MAX_ACCESS_TOKEN = 4096;
/** Longest root or output directory. */
export const MAX_DIRECTORY = 1024;
/** Longest nodeVersion. */
export const MAX_NODE_VERSION = 32;
/** Longest environment variable value (Vercel allows 64 KB for all of a deployment's, Netlify 5,000 characters each). */
export const MAX_ENV_VALUE_BYTES = 32 * 1024;

/** An environment variable's name as a POSIX shell takes it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why `name` is not a branch name git accepts (`git check-ref-format --branch`), or
 * null. Also refused: a leading `-` (it would read as an option) and names over
 * MAX_BRANCH characters.
 */
export function branchNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_BRANCH) return `must be at most ${MAX_BRANCH} characters`;
  if (name.startsWith('-')) return 'must not start with "-"';
  if (CONTROL.test(name) || name.includes(' ')) return 'must not hold spaces or control characters';
  if (/[~^:?*[\\]/.test(name)) return 'must not hold any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'must not hold ".."';
  if (name.includes('@{')) return 'must not hold "@{"';
  if (name === '@') return 'must not be "@"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'must not start or end with "/" nor hold "//"';
  if (name.endsWith('.')) return 'must not end with "."';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'no part between slashes may start with "."';
    if (part.endsWith('.lock')) return 'no part between slashes may end with ".lock"';
  }
  return null;
}

/**
 * A directory inside the repository in the one form it is stored in: `''` for the
 * root, else slash-separated names without `.` parts or a trailing slash
 * (`./site/` → `site`). Returns the problem instead when it is absolute, climbs out
 * (`..`), or holds backslashes or control characters.
 */
export function normalizeDirectory(value: string): { value: string } | { problem: string } {
  if (value.length > MAX_DIRECTORY) return { problem: `must be at most ${MAX_DIRECTORY} characters` };
  if (CONTROL.test(value)) return { problem: 'must not hold control characters' };
  if (value.includes('\\')) return { problem: 'must use "/" between names, not "\\"' };
  if (value.startsWith('/')) return { problem: 'must be relative to the repository (no leading "/")' };
  const parts = value.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { problem: 'must not hold ".." (it stays inside the repository)' };
  return { value: parts.join('/') };
}

/** One comparator of a short semver range: `20`, `22.x`, `>=20`, `^20.11`, `~22.3.0`. */
const NODE_COMPARATOR = /^(?:>=|<=|>|<|=|\^|~)?\d{1,3}(?:\.(?:\d{1,5}|x|\*)){0,2}$/;

/** Why `value` is not a Node version the build can ask for, or null: one or two comparators (`>=20 <23`). */
export function nodeVersionProblem(value: string): string | null {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_NODE_VERSION) return `must be at most ${MAX_NODE_VERSION} characters`;
  const parts = value.split(' ');
  if (parts.length > 2 || !parts.every((p) => NODE_COMPARATOR.test(p))) return 'must be a Node major version or a short range, like 20, 22.x or >=20';
  return null;
}

/** Why `value` is not a command the build can run, or null. */
export function commandProblem(value: string): string | null {
  if (value.trim().length === 0) return 'must not be blank (leave it out or send null to have it detected)';
  if (Buffer.byteLength(value, 'utf8') > MAX_COMMAND_BYTES) return `must be at most ${MAX_COMMAND_BYTES} bytes`;
  if (value.includes('\u0000')) return 'must not hold NUL';
  return null;
}

/** Why `value` is not an access token, or null. */
export function accessTokenProblem(value: string): string | null {
  if (value.length === 0) return 'must not be empty (send null to remove the token)';
  if (value.length > MAX_ACCESS_TOKEN) return `must be at most ${MAX_ACCESS_TOKEN} characters`;
  if (/\s/.test(value) || CONTROL.test(value)) return 'must not hold whitespace or control characters';
  return null;
}

/** Why `value` is not an environment variable's value, or null (a process environment cannot hold NUL). */
export function envValueProblem(value: string): string | null {
  if (Buffer.byteLength(value, 'utf8') > MAX_ENV_VALUE_BYTES) return `must be at most ${MAX_ENV_VALUE_BYTES} bytes`;
  if (value.includes('\u0000')) return 'must not hold NUL';
  return null;
}
