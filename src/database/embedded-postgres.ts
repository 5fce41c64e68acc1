import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, lstat, mkdir, open, readdir, readFile, realpath, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

import { Client } from 'pg';
import type { Logger } from 'pino';

import { describePostgresFailure, isOurPostmaster, parsePostmasterPid } from './embedded-postgres-diagnosis';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
  /**
   * 'down' (reason: string) when the server died under a running app, 'up' when a restart
   * brought it back, 'fatal' (error: EmbeddedPostgresError) when restarts gave up.
   */
  events: EventEmitter;
}

export interface EmbeddedPostgresOptions {
  /** Cluster files live in `<dataDir>/postgres` (a symlink when they must live elsewhere, see runtimeDir). */
  dataDir: string;
  port: number;
  database?: string;
  logger?: Logger;
  /**
   * Root only: where the binaries are copied, and clusters placed, when the `postgres`
   * user cannot reach them where they are (a checkout under /root, a 0700 directory).
   */
  runtimeDir?: string;
}

/** A start-up failure, with a one-line message that says what to do. */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

export const DEFAULT_RUNTIME_DIR = '/var/lib/statichost';
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 20_000;
/** Delays of the restarts after the server dies under a running app (about a minute in all). */
const RESTART_DELAYS_MS = [1000, 2000, 4000, 8000, 15_000, 30_000];
const READY_LINE = 'database system is ready to accept connections';
/** The longest Unix-domain socket path the OS takes (`sun_path` less its closing NUL: 108 bytes on Linux, 104 on macOS and the BSDs). */
export const MAX_SOCKET_PATH_BYTES = platform() === 'linux' ? 107 : 103;

/**
 * The directory of the server's Unix-domain socket (the cluster's own), or undefined when
 * the socket path would not fit or the directory's name needs quoting in
 * `unix_socket_directories`: then the app connects over 127.0.0.1 only. The app and its
 * embedded server share a machine, and a query through a Unix socket skips the TCP stack
 * in both processes: measured here, 42–49 against 59–78 µs of the app's CPU per small
 * prepared query, and about a third less wall time (docs/decisions.md, "The embedded
 * server's Unix socket"). TCP stays on for tools (psql -h 127.0.0.1).
 */
export function socketDirectory(databaseDir: string, port: number): string | undefined {
  if (platform() === 'win32' || /[\s,"\\]/.test(databaseDir)) return undefined;
  return Buffer.byteLength(join(databaseDir, `.s.PGSQL.${port}`)) <= MAX_SOCKET_PATH_BYTES ? databaseDir : undefined;
}

/** The app's connection string: `host` in the query (a socket directory) overrides 127.0.0.1 for `pg` and libpq alike. */
export function embeddedUrl(password: string, port: number, database: string, socketDir: string | undefined): string {
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return socketDir ? `${url}?host=${encodeURIComponent(socketDir)}` : url;
}

interface Binaries {
  dir: string;
  initdb: string;
  postgres: string;
  version: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

/** A password for the embedded cluster, made once and kept beside it (mode 0600). */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'postgres.password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('hex');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** The server binaries shipped by the `@embedded-postgres/<os>-<arch>` package. */
function packagedBinaries(): Binaries {
  const os = platform() === 'win32' ? 'windows' : platform();
  const pkg = `@embedded-postgres/${os}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL binaries for ${os}-${arch()} (${pkg}) are not installed: run \`npm install\` with optional dependencies, or set DATABASE_URL to use your own PostgreSQL`,
    );
  }
  const root = resolve(dirname(entry), '..');
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  return binariesIn(join(root, 'native'), version);
}

function binariesIn(dir: string, version: string): Binaries {
  const exe = platform() === 'win32' ? '.exe' : '';
  return { dir, initdb: join(dir, 'bin', `initdb${exe}`), postgres: join(dir, 'bin', `postgres${exe}`), version };
}

/** PostgreSQL refuses to run as root: as root, the server runs as a `postgres` system user. */
function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (): RunAs | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
  } catch (err) {
    throw new EmbeddedPostgresError(
      `Running as root, the embedded PostgreSQL needs a \`postgres\` system user and creating one failed (${(err as Error).message.split('\n')[0]}): create it (useradd --system postgres), run as a non-root user, or set DATABASE_URL`,
    );
  }
  const created = lookup();
  if (!created)
    throw new EmbeddedPostgresError(
      'Running as root, the embedded PostgreSQL needs a `postgres` system user, and none could be found after creating it: create it by hand, or set DATABASE_URL',
    );
  return created;
}

/** Whether `user` can run the binary (it and its libraries reachable, executable). */
function canRun(bins: Binaries, user: RunAs): boolean {
  const r = spawnSync(bins.postgres, ['--version'], { uid: user.uid, gid: user.gid, stdio: 'ignore', timeout: 10_000 });
  return !r.error && r.status === 0;
}

/** Whether `user` can enter `dir` (search permission on it and every directory above; reading it is not needed). */
function canEnter(dir: string, user: RunAs): boolean {
  const r = spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { uid: user.uid, gid: user.gid, stdio: 'ignore', timeout: 10_000 });
  return !r.error && r.status === 0;
}

/**
 * Root's directory for what the `postgres` user must reach: root-owned, not writable by
 * anyone else (it holds binaries that run), enterable by everyone.
 */
async function prepareRuntimeDir(dir: string, user: RunAs): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const st = await stat(dir);
  if (st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new EmbeddedPostgresError(
      `${dir} must be owned by root and writable by root only (it holds the embedded PostgreSQL's binaries): fix its owner and mode, or set EMBEDDED_POSTGRES_RUNTIME_DIR to another directory`,
    );
  }
  if ((st.mode & 0o005) !== 0o005) await chmod(dir, (st.mode & 0o7777) | 0o755);
  if (!canEnter(dir, user)) {
    throw new EmbeddedPostgresError(
      `The postgres user cannot enter ${dir} (a directory above it is closed to others): set EMBEDDED_POSTGRES_RUNTIME_DIR to a directory it can reach, e.g. ${DEFAULT_RUNTIME_DIR}`,
    );
  }
}

/** Copies the binaries into the runtime directory once per package version (atomically: copy, then rename). */
async function stageBinaries(src: Binaries, runtimeDir: string, log?: Logger): Promise<Binaries> {
  const target = join(runtimeDir, `postgres-${src.version}-${platform()}-${arch()}`);
  if (!existsSync(join(target, 'bin', basename(src.postgres)))) {
    log?.info({ from: src.dir, to: target }, 'the postgres user cannot reach the embedded PostgreSQL binaries: copying them');
    const tmp = `${target}.tmp-${randomBytes(4).toString('hex')}`;
    await cp(src.dir, tmp, { recursive: true, verbatimSymlinks: true });
    await chmod(tmp, 0o755);
    try {
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      // Another instance staged the same version first.
      if (!existsSync(target)) throw err;
    }
  }
  return binariesIn(target, src.version);
}

type ClusterState = 'missing' | 'ready' | 'unfinished';

/**
 * Clusters are initialised into a temporary directory and renamed into place, so one at
 * its final path is complete. Clusters from before that could be left half-made by a
 * kill during initdb (no pg_control, or no `postgres` database: OID 5 since PostgreSQL 15).
 */
function clusterState(dir: string): ClusterState {
  if (!existsSync(dir)) return 'missing';
  const complete = ['PG_VERSION', 'global/pg_control', 'base/1', 'base/5'].every((p) => existsSync(join(dir, p)));
  return complete ? 'ready' : 'unfinished';
}

/**
 * Where the cluster lives: `<dataDir>/postgres`, or, when root's `postgres` user cannot
 * reach DATA_DIR, `<runtimeDir>/clusters/<hash of DATA_DIR>` with `<dataDir>/postgres`
 * a symlink to it (so DATA_DIR still says where its database is).
 */
async function clusterLocation(dataDir: string, runtimeDir: string, user: RunAs | undefined, log?: Logger): Promise<string> {
  const inside = join(dataDir, 'postgres');
  const link = await lstat(inside).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const target = await realpath(inside).catch(() => undefined);
    if (target) return target;
    await unlink(inside);
  }
  if (!user || canEnter(dataDir, user)) return inside;

  if (link?.isDirectory()) {
    if (clusterState(inside) === 'ready') {
      throw new EmbeddedPostgresError(
        `The postgres user cannot reach the cluster in ${inside} (a directory above DATA_DIR is closed to others): move DATA_DIR to a directory it can enter (e.g. under ${DEFAULT_RUNTIME_DIR}), or make the directories above it enterable (chmod o+x)`,
      );
    }
    // An earlier version's initdb failed here (EACCES) before writing anything useful.
    await rm(inside, { recursive: true, force: true });
  }
  const clusters = join(runtimeDir, 'clusters');
  await mkdir(clusters, { recursive: true, mode: 0o755 });
  const target = join(
    clusters,
    createHash('sha256')
      .update(await realpath(dataDir))
      .digest('hex')
      .slice(0, 16),
  );
  if (existsSync(target)) {
    // The link is gone, so DATA_DIR (and the password of this cluster) was removed: keep the old cluster aside.
    const aside = `${target}.orphaned-${Date.now()}`;
    log?.warn({ cluster: target, movedTo: aside }, 'a cluster of an earlier DATA_DIR at this path has no link from DATA_DIR any more: moved aside');
    await rename(target, aside);
  }
  log?.info({ dataDir, cluster: target }, 'the postgres user cannot enter DATA_DIR: the cluster lives in the runtime directory, linked from DATA_DIR/postgres');
  await symlink(target, inside);
  return target;
}

/** Runs initdb into a temporary directory beside `databaseDir`, then renames it into place. */
async function initialise(bins: Binaries, databaseDir: string, password: string, user: RunAs | undefined, log?: Logger): Promise<void> {
  const parent = dirname(databaseDir);
  const prefix = `${basename(databaseDir)}.init-`;
  // Leftovers of a start killed during initdb.
  for (const name of await readdir(parent)) {
    if (name.startsWith(prefix)) await rm(join(parent, name), { recursive: true, force: true }).catch(() => undefined);
  }
  const tmp = join(parent, `${prefix}${randomBytes(4).toString('hex')}`);
  const pwfile = `${tmp}.pw`;
  await mkdir(tmp, { mode: 0o700 });
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) {
    await chown(tmp, user.uid, user.gid);
    await chown(pwfile, user.uid, user.gid);
  }
  log?.info({ databaseDir }, 'initialising embedded PostgreSQL cluster');
  try {
    await runToEnd(bins.initdb, [`--pgdata=${tmp}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwfile}`, '--lc-messages=C'], user, log);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  } finally {
    await rm(pwfile, { force: true });
  }
  await rename(tmp, databaseDir);
  const dir = await open(parent, 'r');
  await dir.sync().catch(() => undefined);
  await dir.close();
}

function spawnFailure(err: NodeJS.ErrnoException, file: string, user: RunAs | undefined): EmbeddedPostgresError {
  if (err.code === 'EACCES') {
    return new EmbeddedPostgresError(
      `Cannot run ${file}: permission denied${user ? ' for the postgres user (a directory above it is closed to others)' : ''}. Make it executable and reachable, or set DATABASE_URL`,
    );
  }
  if (err.code === 'ENOENT') return new EmbeddedPostgresError(`${file} is missing: reinstall dependencies (\`npm ci\`), or set DATABASE_URL`);
  return new EmbeddedPostgresError(`Cannot run ${file}: ${err.message}`);
}

function runToEnd(file: string, args: string[], user: RunAs | undefined, log?: Logger): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { ...user, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        log?.debug({ component: 'embedded-postgres' }, line.trim());
        tail.push(line.trim());
        if (tail.length > 20) tail.shift();
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', (err) => reject(spawnFailure(err, file, user)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolvePromise();
      const last = tail.filter((l) => /error|fatal|could not|cannot/i.test(l)).pop() ?? tail.pop() ?? `exit ${code ?? signal}`;
      reject(new EmbeddedPostgresError(`initdb failed (${last}): fix the cause, or remove the data directory's leftovers and start again`));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's parent and arguments (Linux /proc, else `ps`). */
function processInfo(pid: number): { ppid: number; args: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { ppid, args };
  } catch {
    try {
      const out = execFileSync('ps', ['-o', 'ppid=', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      const [ppid, ...args] = out.split(/\s+/);
      return out ? { ppid: Number(ppid), args } : undefined;
    } catch {
      return undefined;
    }
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

/**
 * A postmaster still running on this data directory from an earlier run (the app was
 * killed with -9, so nothing stopped it) blocks every later start: stop it. One whose
 * parent is the live app recorded in `postgres.owner` belongs to a running instance.
 */
async function stopOrphan(databaseDir: string, dataDir: string, log?: Logger): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  const text = await readFile(pidFile, 'utf8').catch(() => undefined);
  const pid = text === undefined ? undefined : parsePostmasterPid(text);
  if (pid === undefined || !alive(pid)) return; // PostgreSQL clears a stale file of a dead process itself.
  const info = processInfo(pid);
  if (!info || !isOurPostmaster(info.args, databaseDir, (p) => safeRealpath(p))) {
    // The PID now belongs to an unrelated process (e.g. after a reboot): the file is stale.
    log?.warn({ pid, pidFile }, 'removing a stale postmaster.pid (its PID now belongs to another process)');
    await unlink(pidFile).catch(() => undefined);
    return;
  }
  const owner = Number((await readFile(join(dataDir, 'postgres.owner'), 'utf8').catch(() => '')).trim());
  if (owner && owner === info.ppid && owner !== process.pid && alive(owner)) {
    throw new EmbeddedPostgresError(
      `Another statichost (pid ${owner}) is already running with DATA_DIR ${dataDir}: stop it first, or give this instance its own DATA_DIR`,
    );
  }
  log?.warn({ pid, databaseDir }, 'stopping the embedded PostgreSQL left running by an earlier run that was killed');
  for (const [signal, ms] of [
    ['SIGINT', STOP_TIMEOUT_MS],
    ['SIGQUIT', 5000],
    ['SIGKILL', 5000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitForExit(pid, ms)) return;
  }
  throw new EmbeddedPostgresError(`The embedded PostgreSQL left running by an earlier run (pid ${pid}) did not stop: kill it by hand and start again`);
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

interface Running {
  child: ChildProcess;
  /** Settles when the process has exited. */
  exited: Promise<void>;
}

/** Starts the postmaster and waits until it accepts connections. */
function launch(bins: Binaries, databaseDir: string, port: number, user: RunAs | undefined, log?: Logger): Promise<Running> {
  const socketDir = socketDirectory(databaseDir, port) ?? '';
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      bins.postgres,
      ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir}`],
      {
        ...user,
        env: { ...process.env, LC_MESSAGES: 'C' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const tail: string[] = [];
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGQUIT');
      reject(
        new EmbeddedPostgresError(
          `The embedded PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s (data in ${databaseDir}): start with LOG_LEVEL=debug to see its log`,
        ),
      );
    }, READY_TIMEOUT_MS);
    const onLines = (chunk: Buffer) => {
      for (const raw of chunk.toString('utf8').split('\n')) {
        const line = raw.trim();
        if (!line) continue;
        log?.debug({ component: 'embedded-postgres' }, line);
        if (!ready) {
          tail.push(line);
          if (tail.length > 30) tail.shift();
          if (line.includes(READY_LINE)) {
            ready = true;
            clearTimeout(timer);
            resolvePromise({ child, exited });
          }
        }
      }
    };
    child.stdout.on('data', onLines);
    child.stderr.on('data', onLines);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(spawnFailure(err, bins.postgres, user));
    });
    child.once('exit', (code, signal) => {
      if (ready) return;
      clearTimeout(timer);
      reject(new EmbeddedPostgresError(describePostgresFailure(tail, { port, databaseDir, exit: code ?? signal })));
    });
  });
}

async function ensureDatabase(port: number, password: string, database: string, databaseDir: string, dataDir: string): Promise<void> {
  const client = new Client({ connectionString: embeddedUrl(password, port, 'postgres', socketDirectory(databaseDir, port)) });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    if ((err as { code?: string }).code === '28P01') {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL in ${databaseDir} refused the password in ${join(dataDir, 'postgres.password')} (was that file replaced?): restore it, or remove ${databaseDir} to start with an empty database`,
      );
    }
    throw err;
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package's binaries,
 * restarts it when it dies under a running app, and turns every start-up failure
 * into an EmbeddedPostgresError whose message says what to do.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(options.dataDir);
  try {
    return await start({ ...options, dataDir });
  } catch (err) {
    if (err instanceof EmbeddedPostgresError) throw err;
    const e = err as NodeJS.ErrnoException;
    const hint =
      e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' || e.code === 'ENOTDIR' || e.code === 'EEXIST'
        ? `set DATA_DIR to a directory this user can write`
        : 'fix the cause, or set DATABASE_URL to use your own PostgreSQL';
    throw new EmbeddedPostgresError(`The embedded PostgreSQL did not start (${e.message.split('\n')[0]}; DATA_DIR ${dataDir}, port ${options.port}): ${hint}`, {
      cause: err,
    });
  }
}

async function start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const { dataDir, port } = options;
  const database = options.database ?? 'statichost';
  const log = options.logger;
  await mkdir(dataDir, { recursive: true });
  const user = postgresUser();
  let bins = packagedBinaries();
  if (user) {
    // The server runs as `postgres`, which must be able to enter DATA_DIR.
    const { mode } = await stat(dataDir);
    if ((mode & 0o001) === 0) await chmod(dataDir, mode | 0o711);
  }
  const runtimeDir = resolve(options.runtimeDir ?? DEFAULT_RUNTIME_DIR);
  if (user && !canRun(bins, user)) {
    await prepareRuntimeDir(runtimeDir, user);
    bins = await stageBinaries(bins, runtimeDir, log);
    if (!canRun(bins, user))
      throw new EmbeddedPostgresError(
        `The postgres user cannot run ${bins.postgres} even after copying it: check the modes of ${runtimeDir}, or set DATABASE_URL`,
      );
  }
  if (user && !canEnter(dataDir, user)) await prepareRuntimeDir(runtimeDir, user);
  const password = await clusterPassword(dataDir);
  const databaseDir = await clusterLocation(dataDir, runtimeDir, user, log);

  let state = clusterState(databaseDir);
  if (state === 'unfinished') {
    log?.warn({ databaseDir }, 'the cluster was left unfinished by a start killed during initdb: initialising it again');
    await rm(databaseDir, { recursive: true, force: true });
    state = 'missing';
  }
  if (state === 'missing') await initialise(bins, databaseDir, password, user, log);
  await stopOrphan(databaseDir, dataDir, log);

  const ownerFile = join(dataDir, 'postgres.owner');
  let running = await launch(bins, databaseDir, port, user, log);
  // Nothing stops the server when the process exits without stop() (process.exit, an
  // uncaught error, a failure below): signal it on the way out so it never outlives us.
  const onExit = () => running.child.kill('SIGINT');
  process.once('exit', onExit);
  await writeFile(ownerFile, `${process.pid}\n`);
  await ensureDatabase(port, password, database, databaseDir, dataDir);

  const events = new EventEmitter();
  let stopping = false;

  const supervise = (current: Running) => {
    current.child.once('exit', (code, signal) => {
      if (stopping) return;
      const reason = `exit ${code ?? signal}`;
      log?.error({ component: 'embedded-postgres', reason }, 'the embedded PostgreSQL died: restarting it');
      events.emit('down', reason);
      void restart(0);
    });
  };
  const restart = async (attempt: number): Promise<void> => {
    await new Promise((r) => setTimeout(r, RESTART_DELAYS_MS[attempt]));
    if (stopping) return;
    try {
      await stopOrphan(databaseDir, dataDir, log);
      running = await launch(bins, databaseDir, port, user, log);
    } catch (err) {
      const message = err instanceof EmbeddedPostgresError ? err.message : `The embedded PostgreSQL did not restart: ${(err as Error).message}`;
      if (attempt + 1 < RESTART_DELAYS_MS.length) {
        log?.warn({ component: 'embedded-postgres', attempt: attempt + 1, err: message }, 'restarting the embedded PostgreSQL failed; trying again');
        return restart(attempt + 1);
      }
      const fatal = new EmbeddedPostgresError(`${message} (gave up restarting after ${attempt + 1} attempts)`);
      log?.error({ component: 'embedded-postgres' }, fatal.message);
      events.emit('fatal', fatal);
      return;
    }
    if (stopping) {
      running.child.kill('SIGINT');
      return;
    }
    log?.info({ component: 'embedded-postgres' }, 'the embedded PostgreSQL is back');
    supervise(running);
    events.emit('up');
  };
  supervise(running);

  return {
    url: embeddedUrl(password, port, database, socketDirectory(databaseDir, port)),
    events,
    async stop() {
      if (stopping) return;
      stopping = true;
      process.removeListener('exit', onExit);
      const { child, exited } = running;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      await unlink(ownerFile).catch(() => undefined);
    },
  };
}
