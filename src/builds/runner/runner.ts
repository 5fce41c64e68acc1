/**
 * The sandbox a build's install and build commands run in. Drivers: podman and docker
 * (same CLI: a fresh locked-down container per command) and process (a child process with
 * no isolation, development and tests only). The clone and the upload happen on the
 * builder's side, outside the sandbox; only commands from the repository run inside.
 */
export const RUNNER_NAMES = ['podman', 'docker', 'process'] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

/** The checkout and the package manager's cache as the command sees them (host paths for `process`, mount points in a container). */
export interface SandboxPaths {
  checkout: string;
  cache: string;
}

export interface RunRequest {
  /** A shell command line, run by `sh -c`. */
  command: string;
  /** Absolute host path of the checkout: the only place the command may write besides the cache. */
  checkoutDir: string;
  /** Where the command runs, relative to the checkout ('' for its root). */
  workdir: string;
  /** Absolute host path of the package manager's cache (restored before, saved after by the pipeline). */
  cacheDir: string;
  /** The command's whole environment: nothing of the builder's own process.env reaches it. */
  env: Record<string, string>;
  /** Aborted on cancel and timeout: the command's processes are killed (within 5 s). */
  signal: AbortSignal;
  onOutput(chunk: string, stream: 'stdout' | 'stderr'): void;
}

export interface RunResult {
  /** null when killed by a signal. */
  exitCode: number | null;
  signal: string | null;
}

export interface BuildRunner {
  readonly name: RunnerName;
  /** The paths a command sees, so the pipeline can point HOME and caches at them. */
  sandboxPaths(checkoutDir: string, cacheDir: string): SandboxPaths;
  run(request: RunRequest): Promise<RunResult>;
}

/** No runner can run builds here: `install` says what to install or set. */
export class BuildsUnavailableError extends Error {
  constructor(readonly install: string) {
    super(`builds are unavailable on this server: ${install}`);
  }
}
