/** Where a build's environment variables apply (`targets` of PUT /projects/:projectId/env/:name). */
export const ENV_TARGETS = ['production', 'preview'] as const;
export type EnvTarget = (typeof ENV_TARGETS)[number];

/**
 * What a build needs of a project's Git settings, secrets opened: the one shape the git
 * module hands the builds module (GitSettingsService.buildInputs). Unset commands are
 * null: the builder detects them from the repository.
 */
export interface GitBuildInputs {
  projectId: string;
  /** An https:// clone URL, checked when saved (and again before each clone: DNS can change). */
  repository: string;
  productionBranch: string;
  /** The site's folder inside the repository, '' for the root; never absolute, never `..`. */
  rootDirectory: string;
  installCommand: string | null;
  buildCommand: string | null;
  /** Relative to rootDirectory. */
  outputDirectory: string | null;
  /** A Node major or semver range the build asks for (`20`, `22.x`); null: the image's. */
  nodeVersion: string | null;
  /** Token of a private repository, given to git through a header, never a command line; also what the forge's API is called with. */
  accessToken: string | null;
  /** The forge whose API hears back (ProjectGit.forge); null: known from the repository's host, if at all (forgeOfHost). */
  forge?: 'github' | 'gitlab' | 'gitea' | 'forgejo' | null;
  /** The project's variables for the build's target, values opened; builds of forks get none. */
  env: Record<string, string>;
}
