import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';

import { BuildFailure, type ResolvedCommit } from './types';

/**
 * Refuses a ref git could read as something else: an option (`--upload-pack=...`), a
 * refspec that writes a local ref (`a:b`, `+a`), a revision expression (`a~1`, `a^`,
 * `@{1}`) or anything git's check-ref-format refuses. Branches, tags and commit shas pass.
 */
export function refProblem(ref: string): string | undefined {
  if (ref.length === 0) return 'is empty';
  if (ref.length > 255) return 'is longer than 255 characters';
  if (ref.startsWith('-')) return 'starts with "-"';
  // Only a leading "+" makes a refspec forced; git allows it inside a name (release/1.2+hotfix).
  if (ref.startsWith('+')) return 'starts with "+"';
  if (/[\u0000-\u0020\u007f]/.test(ref)) return 'contains a space or a control character';
  const bad = /[~^:?*[\\]/.exec(ref);
  if (bad) return `contains "${bad[0]}"`;
  if (ref.includes('..') || ref.includes('@{') || ref.includes('//')) return 'contains "..", "@{" or "//"';
  if (ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) return 'is not a valid branch, tag or commit name';
  return undefined;
}

export function assertSafeRef(ref: string): void {
  const problem = refProblem(ref);
  if (problem) throw new BuildFailure(`ref ${JSON.stringify(ref.slice(0, 80))} ${problem}; give a branch, a tag or a commit sha`);
}

export interface GitAccess {
  /** http:// too (GIT_ALLOW_PRIVATE_ADDRESSES=true): https only otherwise. */
  allowHttp: boolean;
  /** A private repository's token: sent as a Basic Authorization header. */
  accessToken: string | null;
  /** A scratch directory: git's HOME, so no user's config or credentials are read. */
  home: string;
  /** The builder's PATH (to find git). */
  path: string;
}

/**
 * `-c` options of every git call: only https (and http when allowed) may be used, at
 * any depth (submodules, redirects to file:// or ext::), no redirect may move the
 * request to another address than the one checked, no hooks and no symbolic links in
 * the checkout (a link to /etc/passwd committed as `dist/index.html` would otherwise
 * be read by the builder when it collects the output, outside any sandbox).
 */
export function gitConfigArgs(access: Pick<GitAccess, 'allowHttp'>): string[] {
  const config = [
    'protocol.allow=never',
    'protocol.https.allow=always',
    ...(access.allowHttp ? ['protocol.http.allow=always'] : []),
    'http.followRedirects=false',
    'core.hooksPath=/dev/null',
    'core.symlinks=false',
    'core.fsmonitor=false',
    'credential.helper=',
    'submodule.recurse=false',
  ];
  return config.flatMap((c) => ['-c', c]);
}

/**
 * git's whole environment: nothing of the builder's own (no proxy, credential or
 * config variable of its operator), no system or global config, never a prompt. The
 * token travels as an http.extraHeader set through GIT_CONFIG_* variables: never on a
 * command line (where `ps` shows it) and never in a URL (where git's messages show it).
 */
export function gitEnv(access: GitAccess): Record<string, string> {
  const env: Record<string, string> = {
    PATH: access.path,
    HOME: access.home,
    XDG_CONFIG_HOME: access.home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: access.allowHttp ? 'https:http' : 'https',
    GIT_PROTOCOL_FROM_USER: '0',
    LC_ALL: 'C',
  };
  if (access.accessToken) {
    const basic = Buffer.from(`x-access-token:${access.accessToken}`, 'utf8').toString('base64');
    Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` });
  }
  return env;
}

/** Runs git (async: the test's Git server may live in this very process), resolves with its stdout; a non-zero exit rejects with its stderr. */
export function runGit(args: string[], options: { cwd: string; env: Record<string, string>; signal: AbortSignal }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: options.env, signal: options.signal, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr.length < 16_384 ? (stderr += c) : undefined));
    child.on('error', (err) => reject(options.signal.aborted ? new GitAborted() : err));
    child.on('close', (code) => {
      if (options.signal.aborted) reject(new GitAborted());
      else if (code === 0) resolve(stdout);
      else reject(new GitFailed(subcommandOf(args), stderr.trim()));
    });
  });
}

/** `fetch` of `-c a=b -c c=d fetch ...`. */
function subcommandOf(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return 'git';
}

export class GitAborted extends Error {
  constructor() {
    super('git was stopped (the build was canceled or timed out)');
  }
}

export class GitFailed extends Error {
  constructor(
    readonly command: string,
    readonly stderr: string,
  ) {
    super(`git ${command} failed: ${stderr || 'no message'}`);
  }
}

/** Where git must connect for the repository's host: the addresses the policy checked. */
export interface AddressPin {
  host: string;
  port: number;
  addresses: string[];
}

/** curl's resolve entry (`http.curloptResolve`): `host:port:addr[,addr]`, IPv6 in brackets. */
export function resolveEntry(pin: AddressPin): string {
  const host = pin.host.includes(':') ? `[${pin.host}]` : pin.host;
  return `${host}:${pin.port}:${pin.addresses.map((a) => (a.includes(':') ? `[${a}]` : a)).join(',')}`;
}

export interface CloneRequest {
  repository: string;
  /** The checked addresses: git connects to these, never to a fresh DNS answer. */
  pin?: AddressPin;
  ref: string;
  dir: string;
  access: GitAccess;
  signal: AbortSignal;
  /** Lines for the build log (already free of the token: git never sees it outside the env). */
  log(line: string): void;
}

/**
 * A shallow checkout of one ref: `git init` + `git fetch --depth 1 origin <ref>` works
 * alike for a branch, a tag and a full commit sha (protocol v2 serves any reachable
 * commit), and fetches one commit's tree only.
 */
export async function cloneRef(request: CloneRequest): Promise<ResolvedCommit> {
  assertSafeRef(request.ref);
  await mkdir(request.dir, { recursive: true });
  await mkdir(request.access.home, { recursive: true });
  const env = gitEnv(request.access);
  const config = [...gitConfigArgs(request.access), ...(request.pin ? ['-c', `http.curloptResolve=${resolveEntry(request.pin)}`] : [])];
  const git = (...args: string[]) => runGit([...config, ...args], { cwd: request.dir, env, signal: request.signal });
  try {
    // --template= : no hooks or other files copied from the builder's git installation.
    await git('init', '-q', '--template=', '.');
    await git('remote', 'add', 'origin', request.repository);
    const branchName = request.ref.replace(/^refs\/heads\//, '');
    const heads = await git('ls-remote', '--heads', 'origin', `refs/heads/${branchName}`);
    const branch = heads.split('\n').some((line) => line.endsWith(`\trefs/heads/${branchName}`)) ? branchName : null;
    // A branch is fetched by its full name: git looks a short one up as refs/<name>, then
    // refs/tags/<name>, then refs/heads/<name>, so a tag named like the production branch
    // (which branch protection does not cover) would be built and published in its place.
    await git('fetch', '-q', '--depth', '1', '--no-tags', '--no-recurse-submodules', 'origin', branch ? `refs/heads/${branch}` : request.ref);
    await git('checkout', '-q', '--detach', 'FETCH_HEAD');
    const sha = (await git('rev-parse', 'HEAD')).trim();
    const message = (await git('log', '-1', '--format=%s', 'HEAD')).trim();
    request.log(`Checked out ${sha.slice(0, 12)}${branch ? ` (branch ${branch})` : ''}: ${message}`);
    return { sha, message, branch };
  } catch (err) {
    if (err instanceof GitFailed) throw new BuildFailure(cloneFailure(err, request.ref));
    throw err;
  }
}

/** What the build's author can do about a failed clone, from git's own message. */
export function cloneFailure(err: GitFailed, ref: string): string {
  const text = err.stderr;
  if (/Authentication failed|could not read Username|\b401\b|\b403\b/i.test(text)) {
    return 'clone failed: the repository refused access (set or renew the access token in the project’s Git settings)';
  }
  if (/couldn't find remote ref|not our ref|no such remote ref|unadvertised object/i.test(text)) {
    return `clone failed: ref ${JSON.stringify(ref)} was not found in the repository`;
  }
  if (/not found|repository .* does not exist|\b404\b/i.test(text)) return 'clone failed: repository not found';
  if (/transport .* not allowed|unsupported protocol/i.test(text)) return `clone failed: the repository's transport is not allowed (${text.split('\n')[0]})`;
  return `clone failed: git ${err.command}: ${text.split('\n').slice(-3).join(' ').slice(0, 500) || 'no message'}`;
}
