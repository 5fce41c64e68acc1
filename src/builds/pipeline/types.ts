import type { EntityManager } from 'typeorm';

import type { GitBuildInputs } from '../../git/build-inputs';
import type { Principal } from '../../shared/principal';
import type { BuildRunner } from '../runner/runner';

/** The phases a build's log lines carry, in order. */
export const BUILD_PHASES = ['clone', 'detect', 'install', 'build', 'upload', 'deploy'] as const;
export type BuildPhase = (typeof BUILD_PHASES)[number];

/** Where the pipeline writes the build's log; lines are timestamped and capped by the sink. Secrets are masked before they reach it. */
export interface BuildLogSink {
  write(phase: BuildPhase, text: string, stream?: 'stdout' | 'stderr' | 'system'): void;
}

export type PackageManager = 'npm' | 'pnpm' | 'yarn';

/** What the pipeline found in the repository (shown on the build record). */
export interface DetectedBuild {
  framework: string | null;
  packageManager: PackageManager | null;
  installCommand: string | null;
  buildCommand: string | null;
  outputDirectory: string;
}

export interface PipelineJob {
  buildId: string;
  /** The deploy acts as this principal (the project's workspace, scope deploy, bound to the project). */
  principal: Principal;
  /** Branch, tag or commit to build. */
  ref: string;
  /**
   * Never publish, whatever branch the ref resolves to: a pull request's build (its head
   * branch may be called like the production branch; it is still not the production branch).
   */
  previewOnly?: boolean;
  /**
   * A pull request from a fork: its install scripts are not the team's, so the dependency
   * cache is restored but never written (the production build would restore what they left).
   */
  fork?: boolean;
  inputs: GitBuildInputs;
  runner: BuildRunner;
  log: BuildLogSink;
  /** Aborted on cancel and timeout. */
  signal: AbortSignal;
  /** Called once the ref is resolved, before install, so the record shows the commit early. */
  onResolved?(commit: ResolvedCommit): Promise<void>;
  /**
   * Runs inside the deploy's transaction, before it commits: throws when the build may no
   * longer deploy (canceled, timed out or taken over meanwhile), so nothing goes live.
   */
  beforeDeployCommit?(manager: EntityManager, deploymentId: string, published: boolean): Promise<void>;
}

export interface ResolvedCommit {
  sha: string;
  message: string;
  /** The branch the ref names; null for a tag or a bare commit. */
  branch: string | null;
}

export interface PipelineResult {
  commit: ResolvedCommit;
  detected: DetectedBuild;
  deploymentId: string;
  /** true when the deployment went live (a build of the production branch). */
  published: boolean;
}

/** A failure the build's author can act on (clone refused, command exited 1, no output folder): its message goes on the record as `error`. */
export class BuildFailure extends Error {}
