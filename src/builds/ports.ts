import type { EnvTarget, GitBuildInputs } from '../git/build-inputs';
import type { PipelineJob, PipelineResult } from './pipeline/types';
import type { BuildRunner } from './runner/runner';

/**
 * What the builds module needs of its neighbours, as classes Nest can inject: the git
 * module's settings (GitSettingsService), the runner choice (runner/select-runner.ts)
 * and the pipeline (BuildPipeline). BuildsModule binds each to its implementation.
 */
export abstract class BuildInputsSource {
  abstract buildInputs(projectId: string, target: EnvTarget, opts?: { withEnv?: boolean }): Promise<GitBuildInputs | null>;
}

export abstract class RunnerSource {
  /** The runner builds use here; throws BuildsUnavailableError naming what to install. */
  abstract runner(): BuildRunner;
}

export abstract class PipelinePort {
  abstract run(job: PipelineJob): Promise<PipelineResult>;
}

/**
 * Tells the build's forge of a change of the build (its commit known, or its end): the
 * commit status and the pull request comment (feedback/forge-feedback.ts). Called after
 * the change is committed; returns at once and never throws, so a forge can neither
 * slow nor fail a build.
 */
export abstract class BuildFeedback {
  abstract buildChanged(buildId: string): void;
}
