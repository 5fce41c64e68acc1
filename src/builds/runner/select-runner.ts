import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

import { Logger } from '@nestjs/common';

import type { AppConfig } from '../../config/app-config';
import { ContainerRunner } from './podman-runner';
import { type BuildRunner, BuildsUnavailableError } from './runner';

export type RunnerConfig = Pick<
  AppConfig,
  'NODE_ENV' | 'BUILD_RUNNER' | 'BUILD_IMAGE' | 'BUILD_CPUS' | 'BUILD_MEMORY_MB' | 'BUILD_PIDS_LIMIT' | 'BUILD_CA_BUNDLE'
>;

/** Finds an executable on PATH (absolute path) or null; injectable so the rules can be tested on any machine. */
export type Which = (binary: string) => string | null;

export interface SelectRunnerOptions {
  /** The unsandboxed runner (BUILD_RUNNER=process); the pipeline's ProcessRunner. */
  createProcessRunner?: () => BuildRunner;
  /** Where the "builds run unsandboxed" warning goes. */
  warn?: (message: string) => void;
}

export const UNSANDBOXED_WARNING =
  'BUILD_RUNNER=process: builds run as child processes of this server with no sandbox; anyone who can start a build can run code on this machine. Use it for development and tests only.';

/**
 * The build runner this server uses, chosen once at start-up:
 * - `BUILD_RUNNER` set: that one. `process` is refused with NODE_ENV=production (an Error,
 *   which stops the start) and warns otherwise.
 * - unset: podman when on PATH, else docker. `process` is never a default, not even in
 *   development: anyone who can register could otherwise run code on the host.
 * Neither podman nor docker found: BuildsUnavailableError, which the builds API turns into
 * 503 builds_unavailable (settings can still be saved).
 */
export function selectRunner(config: RunnerConfig, which: Which = findOnPath, options: SelectRunnerOptions = {}): BuildRunner {
  const chosen = config.BUILD_RUNNER;
  if (chosen === 'process') {
    if (config.NODE_ENV === 'production') {
      throw new Error(
        'BUILD_RUNNER=process runs builds with no sandbox and is refused with NODE_ENV=production: set BUILD_RUNNER=podman or docker (or leave it unset to use whichever is installed)',
      );
    }
    if (!options.createProcessRunner) {
      throw new Error('BUILD_RUNNER=process: no process runner was given to selectRunner');
    }
    (options.warn ?? defaultWarn)(UNSANDBOXED_WARNING);
    return options.createProcessRunner();
  }
  const candidates = chosen ? [chosen] : (['podman', 'docker'] as const);
  for (const binary of candidates) {
    const path = which(binary);
    if (path) {
      return new ContainerRunner(binary, {
        binaryPath: path,
        image: config.BUILD_IMAGE,
        cpus: config.BUILD_CPUS,
        memoryMb: config.BUILD_MEMORY_MB,
        pidsLimit: config.BUILD_PIDS_LIMIT,
        caBundle: config.BUILD_CA_BUNDLE,
        warn: options.warn ?? defaultWarn,
      });
    }
  }
  throw new BuildsUnavailableError(
    chosen
      ? `install ${chosen} (BUILD_RUNNER=${chosen} but it is not on PATH), or set BUILD_RUNNER to another runner`
      : 'install podman or docker, or set BUILD_RUNNER',
  );
}

export function findOnPath(binary: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    // A relative PATH entry would resolve against whatever the working directory is: never trusted.
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, binary);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function defaultWarn(message: string): void {
  new Logger('Builds').warn(message);
}
