import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join, resolve } from 'node:path';

import { freePort } from '../../src/common/free-port';

export const ROOT = resolve(__dirname, '..', '..');

/** `npm start` as a real process (through swc instead of the compiled dist), killed at will. */
export interface AppProcess {
  proc: ChildProcess;
  pid: number;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface AppProcessOptions {
  env: Record<string, string>;
  /** Where main.ts is run from (default the checkout); `--preserve-symlinks` keeps a linked checkout's paths. */
  cwd?: string;
  preserveSymlinks?: boolean;
}

export async function spawnApp(options: AppProcessOptions): Promise<AppProcess> {
  const port = Number(options.env.PORT ?? (await freePort()));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !['DATABASE_URL', 'TEST_DATABASE_ADMIN_URL', 'NODE_OPTIONS'].includes(k)) env[k] = v;
  }
  Object.assign(env, { NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port) }, options.env);
  const cwd = options.cwd ?? ROOT;
  const args = [
    ...(options.preserveSymlinks ? ['--preserve-symlinks', '--preserve-symlinks-main'] : []),
    '-r',
    require.resolve('@swc-node/register'),
    join(cwd, 'src', 'main.ts'),
  ];
  // Its own process group: a test can kill the app alone, or the app and every child it started.
  const proc = spawn(process.execPath, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  return { proc, pid: proc.pid!, url: `http://127.0.0.1:${port}`, stdout: () => out, stderr: () => err, exited };
}

/** Waits for GET /health to answer 200; fails with the app's output when it exits first. */
export async function waitHealthy(app: AppProcess, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let done = false;
  void app.exited.then(() => (done = true));
  while (Date.now() < until) {
    if (done) throw new Error(`the app exited before it was healthy:\n${app.stderr()}\n${app.stdout().slice(-3000)}`);
    const ok = await httpGet(`${app.url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the app was not healthy within ${timeoutMs} ms:\n${app.stderr()}\n${app.stdout().slice(-3000)}`);
}

/** Stops the app as Ctrl-C would, then anything left in its process group. */
export async function stopApp(app: AppProcess): Promise<void> {
  try {
    process.kill(app.pid, 'SIGINT');
  } catch {
    /* already gone */
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([app.exited, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
  clearTimeout(timer);
  killGroup(app, 'SIGKILL');
}

export function killGroup(app: AppProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-app.pid, signal);
  } catch {
    /* the group is empty */
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** A GET over node:http (fetch cannot set Host, which chooses the site), with no keep-alive. */
export function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return send('GET', url, headers);
}

/** A JSON POST; the answer's body parsed. */
export async function httpPost(url: string, headers: Record<string, string>, json: unknown): Promise<HttpAnswer & { json: Record<string, any> }> {
  const res = await send('POST', url, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(json));
  return { ...res, json: JSON.parse(res.body || '{}') };
}

function send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<HttpAnswer> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${url} did not answer within 15 s`)));
    req.end(body);
  });
}
