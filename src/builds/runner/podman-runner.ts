import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';

import { ensureBuildNetwork } from './container-network';
import type { BuildRunner, RunRequest, RunResult, SandboxPaths } from './runner';

const execFileAsync = promisify(execFile);

export type ContainerEngine = 'podman' | 'docker';

export interface ContainerRunnerOptions {
  /** Absolute path of the engine's binary (selectRunner resolves it once, so a later PATH cannot swap it). */
  binaryPath?: string;
  image: string;
  cpus: number;
  memoryMb: number;
  pidsLimit: number;
  /** A PEM bundle on this machine trusted inside builds (BUILD_CA_BUNDLE). */
  caBundle?: string;
  /** `missing` (the engines' default) pulls BUILD_IMAGE on first use; tests say `never`, nothing may be pulled there. */
  pull?: 'missing' | 'never';
  /**
   * `isolated`: the build network with its firewall (container-network.ts), set up on first
   * use; where that is impossible (not root, no iptables) the engine's default networking
   * with a warning. A network name: that network as it is (the operator answers for it).
   */
  network?: 'isolated' | { name: string };
  /** Size of the writable /tmp (memory, counted in the container's memory limit). */
  tmpfsMb?: number;
  warn?: (message: string) => void;
}

export const CHECKOUT_MOUNT = '/workspace';
export const CACHE_MOUNT = '/cache';
const ENV_MOUNT = '/run/statichost/build.env';
const CA_MOUNT = '/etc/statichost/build-ca.pem';
/** The non-root user builds run as when the builder is root (the official Node images' `node`). */
const BUILD_UID = 1000;
const BUILD_GID = 1000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Runs each command in a fresh, locked-down container (podman or docker: same CLI). What is
 * refused and how it was checked: docs/security.md, "Build sandbox"; the tests:
 * test/builds/sandbox.e2e-spec.ts.
 */
export class ContainerRunner implements BuildRunner {
  readonly name: ContainerEngine;
  private readonly binary: string;
  private network?: Promise<string>;

  constructor(
    engine: ContainerEngine,
    private readonly options: ContainerRunnerOptions,
  ) {
    this.name = engine;
    this.binary = options.binaryPath ?? engine;
  }

  sandboxPaths(): SandboxPaths {
    return { checkout: CHECKOUT_MOUNT, cache: CACHE_MOUNT };
  }

  async run(request: RunRequest): Promise<RunResult> {
    if (request.signal.aborted) return { exitCode: null, signal: 'SIGKILL' };
    const workdir = containerWorkdir(request.workdir);
    const network = await this.networkName();
    const user = await this.prepareOwnership(request);
    const envDir = await mkdtemp(join(tmpdir(), 'statichost-build-env-'));
    try {
      const envFile = join(envDir, 'build.env');
      const env = { ...request.env };
      if (this.options.caBundle) {
        env.NODE_EXTRA_CA_CERTS = CA_MOUNT;
        env.SSL_CERT_FILE = CA_MOUNT;
      }
      await writeFile(envFile, shellEnvFile(env), { mode: 0o400 });
      if (user.chownTo) await chown(envFile, user.chownTo.uid, user.chownTo.gid);
      const name = `statichost-build-${randomBytes(8).toString('hex')}`;
      const args = containerRunArgs({
        engine: this.name,
        name,
        image: this.options.image,
        pull: this.options.pull ?? 'missing',
        user: user.spec,
        keepId: user.keepId,
        cpus: this.options.cpus,
        memoryMb: this.options.memoryMb,
        pidsLimit: this.options.pidsLimit,
        tmpfsMb: this.options.tmpfsMb ?? 256,
        network,
        checkoutDir: request.checkoutDir,
        cacheDir: request.cacheDir,
        envFile,
        caBundle: this.options.caBundle,
        workdir,
        command: request.command,
      });
      return await this.spawnContainer(name, args, request);
    } finally {
      await rm(envDir, { recursive: true, force: true });
    }
  }

  private spawnContainer(name: string, args: string[], request: RunRequest): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      // The engine's own environment: what it needs to find its storage and daemon, nothing
      // of the app's (no secrets, and no LD_PRELOAD-style variables from anyone's settings).
      const child = spawn(this.binary, args, { env: engineEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
      for (const stream of ['stdout', 'stderr'] as const) {
        child[stream].on('data', (chunk: Buffer) => {
          const text = decoders[stream].write(chunk);
          if (text) request.onOutput(text, stream);
        });
      }
      let killing: NodeJS.Timeout | undefined;
      let aborted = false;
      const kill = () => {
        aborted = true;
        void this.removeContainer(name);
        // The container may not exist yet when the abort comes (the engine is still
        // creating it): keep removing until the engine's client has gone.
        killing = setInterval(() => void this.removeContainer(name), 1000);
      };
      request.signal.addEventListener('abort', kill, { once: true });
      child.on('error', (err) => {
        request.signal.removeEventListener('abort', kill);
        clearInterval(killing);
        reject(err);
      });
      child.on('close', (code, signal) => {
        request.signal.removeEventListener('abort', kill);
        clearInterval(killing);
        for (const stream of ['stdout', 'stderr'] as const) {
          const rest = decoders[stream].end();
          if (rest) request.onOutput(rest, stream);
        }
        if (aborted) {
          void this.removeContainer(name);
          resolve({ exitCode: null, signal: 'SIGKILL' });
        } else {
          resolve({ exitCode: code, signal });
        }
      });
    });
  }

  private async removeContainer(name: string): Promise<void> {
    const args = this.name === 'podman' ? ['rm', '--force', '--time', '0', name] : ['rm', '--force', name];
    await execFileAsync(this.binary, args, { env: engineEnv() }).catch(() => undefined);
  }

  private networkName(): Promise<string> {
    const choice = this.options.network ?? 'isolated';
    if (choice !== 'isolated') return Promise.resolve(choice.name);
    this.network ??= ensureBuildNetwork(this.name, this.binary).catch((err: Error) => {
      (this.options.warn ?? (() => undefined))(
        `build containers use ${this.name}'s default network, which can reach this machine's private networks and the cloud metadata address (only podman's refuses the host's loopback): ${err.message}. See docs/security.md, "Build sandbox network".`,
      );
      return this.name === 'podman' ? 'slirp4netns:allow_host_loopback=false' : 'bridge';
    });
    return this.network;
  }

  /**
   * Who the build runs as. A root builder (rootful engine) runs it as 1000:1000 and hands
   * the checkout and the cache to that user; a non-root builder runs it as itself (podman
   * maps it with keep-id), so the files stay the builder's own.
   */
  private async prepareOwnership(request: RunRequest): Promise<{ spec: string; keepId: boolean; chownTo?: { uid: number; gid: number } }> {
    const uid = process.getuid?.() ?? BUILD_UID;
    const gid = process.getgid?.() ?? BUILD_GID;
    if (uid !== 0) return { spec: `${uid}:${gid}`, keepId: this.name === 'podman' };
    for (const dir of [request.checkoutDir, request.cacheDir]) {
      await execFileAsync('chown', ['-R', `${BUILD_UID}:${BUILD_GID}`, dir]);
    }
    return { spec: `${BUILD_UID}:${BUILD_GID}`, keepId: false, chownTo: { uid: BUILD_UID, gid: BUILD_GID } };
  }
}

export interface ContainerRunArgs {
  engine: ContainerEngine;
  name: string;
  image: string;
  pull: 'missing' | 'never';
  user: string;
  keepId: boolean;
  cpus: number;
  memoryMb: number;
  pidsLimit: number;
  tmpfsMb: number;
  network: string;
  checkoutDir: string;
  cacheDir: string;
  envFile: string;
  caBundle?: string;
  workdir: string;
  command: string;
}

/** The engine's `run` arguments. No environment value is among them (a `ps` shows arguments): values are in the env file. */
export function containerRunArgs(a: ContainerRunArgs): string[] {
  const podman = a.engine === 'podman';
  const args = ['run', '--rm', '--name', a.name, '--label', 'statichost.build=1', `--pull=${a.pull}`];
  args.push('--user', a.user);
  if (a.keepId) args.push('--userns=keep-id');
  args.push('--read-only');
  // Podman would add writable /run, /var/tmp and /tmp; only /tmp is wanted.
  if (podman) args.push('--read-only-tmpfs=false');
  args.push('--tmpfs', `/tmp:rw,nosuid,nodev,size=${a.tmpfsMb}m,mode=1777`);
  args.push('--cap-drop=ALL', '--security-opt', 'no-new-privileges');
  args.push('--cpus', String(a.cpus), '--memory', `${a.memoryMb}m`, '--memory-swap', `${a.memoryMb}m`, '--pids-limit', String(a.pidsLimit));
  args.push('--network', a.network, '--sysctl', 'net.ipv6.conf.all.disable_ipv6=1');
  // Podman: no host.containers.internal in /etc/hosts, and none of the engine's proxy variables.
  if (podman) args.push('--no-hosts', '--http-proxy=false');
  args.push('-v', `${a.checkoutDir}:${CHECKOUT_MOUNT}:rw`, '-v', `${a.cacheDir}:${CACHE_MOUNT}:rw`, '-v', `${a.envFile}:${ENV_MOUNT}:ro`);
  if (a.caBundle) args.push('-v', `${a.caBundle}:${CA_MOUNT}:ro`);
  args.push('--workdir', a.workdir);
  // The image's entrypoint (docker-entrypoint.sh in the Node images) is not ours to run.
  args.push('--entrypoint', '/bin/sh', a.image);
  args.push('-c', `. ${ENV_MOUNT} && exec /bin/sh -c "$1"`, 'statichost-build', a.command);
  return args;
}

/** `export NAME='value'` lines for sh: any value (newlines too) survives single quotes. */
export function shellEnvFile(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!ENV_NAME.test(name)) throw new Error(`build environment variable name refused: ${JSON.stringify(name)}`);
      return `export ${name}='${value.replace(/'/g, `'\\''`)}'\n`;
    })
    .join('');
}

/** /workspace/<workdir>, refusing a workdir that leaves the checkout. */
export function containerWorkdir(workdir: string): string {
  const normalized = posix.normalize(`/${workdir}`);
  if (workdir.startsWith('/') || workdir.split('/').includes('..') || normalized.includes('\0')) {
    throw new Error(`working directory leaves the checkout: ${JSON.stringify(workdir)}`);
  }
  return normalized === '/' ? CHECKOUT_MOUNT : `${CHECKOUT_MOUNT}${normalized.replace(/\/$/, '')}`;
}

const ENGINE_ENV = [
  'PATH',
  'HOME',
  'TMPDIR',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'CONTAINERS_CONF',
  'CONTAINERS_STORAGE_CONF',
  'CONTAINERS_REGISTRIES_CONF',
  'CONTAINER_HOST',
  'CONTAINER_CONNECTION',
  'DOCKER_HOST',
  'DOCKER_CONFIG',
  'DOCKER_CONTEXT',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
];

function engineEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ENGINE_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}
