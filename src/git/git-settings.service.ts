import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { LeadsKeyring } from '../leads/keyring';
import { ProjectsService } from '../projects/projects.service';
import type { Principal } from '../shared/principal';
import { ENV_TARGETS, type EnvTarget, type GitBuildInputs } from './build-inputs';
import type { ProjectEnvVar, ProjectGit } from './git.entities';
import { gitError } from './git.errors';
import { GitRepository, type GitSettingsRow } from './git.repository';
import { accessTokenAad, envValueAad, openSecret, sealSecret } from './git-secrets';
import {
  assertRepositoryAllowed,
  type Lookup,
  repositoryLookup,
  RepositoryLookupFailed,
  RepositoryNotAllowed,
  type ResolvedRepository,
} from './repository-url';

/** What PUT /projects/:id/git takes, its fields already checked (dto/put-git-settings.dto.ts). */
export type GitSettingsInput = GitSettingsRow & {
  /** A string sets it, null removes it, undefined keeps the stored one. */
  accessToken: string | null | undefined;
};

/**
 * A project's Git settings and build environment variables: saving them (the
 * repository URL through the policy of ./repository-url.ts, secrets sealed) and
 * handing them, opened, to the builds module (buildInputs).
 */
@Injectable()
export class GitSettingsService {
  private readonly lookup: Lookup;

  constructor(
    private readonly repo: GitRepository,
    private readonly projects: ProjectsService,
    private readonly keyring: LeadsKeyring,
    private readonly config: AppConfig,
  ) {
    this.lookup = repositoryLookup(config);
  }

  /**
   * The repository URL policy with the HTTP errors of this module: 400
   * repository_not_allowed naming why, 503 repository_lookup_failed when DNS did not
   * answer. The pipeline calls it again before each clone.
   */
  async checkRepository(url: string): Promise<ResolvedRepository> {
    try {
      return await assertRepositoryAllowed(url, this.config, this.lookup);
    } catch (err) {
      if (err instanceof RepositoryNotAllowed) throw gitError('repository_not_allowed', `repository: ${err.message}`);
      if (err instanceof RepositoryLookupFailed) throw gitError('repository_lookup_failed', `repository: ${err.message}`);
      throw err;
    }
  }

  async get(principal: Principal, projectId: string): Promise<ProjectGit> {
    const project = await this.projects.findVisible(principal, projectId);
    const settings = await this.repo.find(project.id);
    if (!settings) throw notConnected(project.id);
    return settings;
  }

  async put(principal: Principal, projectId: string, input: GitSettingsInput): Promise<ProjectGit> {
    const project = await this.projects.findVisible(principal, projectId);
    // DNS is asked before anything is written, and with no transaction open.
    const { url } = await this.checkRepository(input.repository);
    const { accessToken, ...settings } = input;
    const token = accessToken == null ? accessToken : sealSecret(this.keyring, accessToken, accessTokenAad(project.id));
    return this.repo.upsert(project.id, { ...settings, repository: url }, token);
  }

  async remove(principal: Principal, projectId: string): Promise<void> {
    const project = await this.projects.findVisible(principal, projectId);
    if (!(await this.repo.remove(project.id))) throw notConnected(project.id);
  }

  async listEnv(principal: Principal, projectId: string): Promise<ProjectEnvVar[]> {
    const project = await this.projects.findVisible(principal, projectId);
    // Code-point order, whatever the database's collation.
    return (await this.repo.listEnv(project.id)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async putEnv(principal: Principal, projectId: string, name: string, value: string, targets: EnvTarget[]): Promise<ProjectEnvVar> {
    const project = await this.projects.findVisible(principal, projectId);
    const ordered = ENV_TARGETS.filter((t) => targets.includes(t));
    return this.repo.upsertEnv(project.id, name, ordered, sealSecret(this.keyring, value, envValueAad(project.id, name)));
  }

  async removeEnv(principal: Principal, projectId: string, name: string): Promise<void> {
    const project = await this.projects.findVisible(principal, projectId);
    if (!(await this.repo.removeEnv(project.id, name))) {
      throw gitError('env_var_not_found', `Project ${project.id} has no environment variable ${name}`);
    }
  }

  /**
   * What a build of the project needs, secrets opened; null when the project is not
   * connected. `env` holds the variables whose targets include `target`, none with
   * `withEnv: false` (builds of code from forks must not see them). The only place
   * secrets are opened: what it returns goes to the build, never to an answer or a log.
   */
  async buildInputs(projectId: string, target: EnvTarget, opts: { withEnv?: boolean } = {}): Promise<GitBuildInputs | null> {
    const settings = await this.repo.find(projectId);
    if (!settings) return null;
    const accessToken =
      settings.tokenKeyId && settings.tokenNonce && settings.tokenCiphertext
        ? openSecret(
            this.keyring,
            { keyId: settings.tokenKeyId, nonce: settings.tokenNonce, ciphertext: settings.tokenCiphertext },
            accessTokenAad(projectId),
            `The access token of project ${projectId}`,
          )
        : null;
    const env: Record<string, string> = {};
    if (opts.withEnv !== false) {
      for (const v of await this.repo.listEnv(projectId)) {
        if (!v.targets.includes(target)) continue;
        env[v.name] = openSecret(
          this.keyring,
          { keyId: v.keyId, nonce: v.valueNonce, ciphertext: v.valueCiphertext },
          envValueAad(projectId, v.name),
          `Environment variable ${v.name} of project ${projectId}`,
        );
      }
    }
    return {
      projectId,
      repository: settings.repository,
      productionBranch: settings.productionBranch,
      rootDirectory: settings.rootDirectory,
      installCommand: settings.installCommand,
      buildCommand: settings.buildCommand,
      outputDirectory: settings.outputDirectory,
      nodeVersion: settings.nodeVersion,
      accessToken,
      forge: settings.forge,
      env,
    };
  }
}

function notConnected(projectId: string) {
  return gitError.at(404, 'git_not_connected', `Project ${projectId} is not connected to a Git repository; connect one with PUT /projects/${projectId}/git`);
}
