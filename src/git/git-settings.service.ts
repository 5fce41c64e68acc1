import { randomBytes } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { badRequest } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { LeadsKeyring } from '../leads/keyring';
import type { Project } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import type { Principal } from '../shared/principal';
import { ENV_TARGETS, type EnvTarget, type GitBuildInputs } from './build-inputs';
import type { ProjectEnvVar, ProjectGit } from './git.entities';
import { gitError } from './git.errors';
import { type GitForge, GitRepository, type GitSettingsRow } from './git.repository';
import { accessTokenAad, envValueAad, openSecret, type SealedSecret, sealSecret, webhookSecretAad } from './git-secrets';
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

/** What the webhook receiver (src/hooks) needs of a project, its secret opened. */
export interface WebhookTarget {
  projectId: string;
  workspaceId: string;
  slug: string;
  repository: string;
  productionBranch: string;
  /** null: no secret was ever created, so every delivery is refused. */
  secret: string | null;
  buildForkPullRequests: boolean;
  forge: GitForge | null;
}

/** Bytes of a webhook secret: 256 bits, as many as the HMAC-SHA256 key can use. */
const WEBHOOK_SECRET_BYTES = 32;

/** A project's Git connection as the audit log names it: the project's id, so a filter by project finds it. */
function gitTarget(project: Pick<Project, 'id' | 'name'>, repository?: string) {
  return { type: 'git', id: project.id, label: repository ?? project.name };
}

/** A build variable as the audit log names it: the project's id, the variable's name (never its value). */
function envTarget(project: Pick<Project, 'id'>, name: string) {
  return { type: 'env_var', id: project.id, label: name };
}

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
    private readonly dataSource: DataSource,
    private readonly audit: AuditLogService,
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
    return this.dataSource.transaction(async (m) => {
      if (accessToken === undefined) {
        // A token kept is kept for the host it was given for: sent along to another host's clone
        // and API calls, it would hand a private repository's secret to whoever runs that host.
        // Read under the row's lock: a save that stores a token meanwhile is seen.
        const current = await this.repo.lockTokenOrigin(m, project.id);
        if (current?.hasToken && new URL(current.repository).origin !== new URL(url).origin) {
          throw badRequest(
            `accessToken: the stored access token is for ${new URL(current.repository).origin}; to move the repository to ${new URL(url).origin}, send that host's token (or null to connect without one)`,
          );
        }
      }
      const saved = await this.repo.upsert(project.id, { ...settings, repository: url }, token, m);
      // The access token's name only (`accessToken`), never the token.
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'git.connected', target: gitTarget(project, url), changes: changedFields(input) });
      return saved;
    });
  }

  async remove(principal: Principal, projectId: string): Promise<void> {
    const project = await this.projects.findVisible(principal, projectId);
    await this.dataSource.transaction(async (m) => {
      if (!(await this.repo.remove(project.id, m))) throw notConnected(project.id);
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'git.disconnected', target: gitTarget(project) });
    });
  }

  /**
   * A new webhook secret for the project (32 random bytes, base64url), replacing the old
   * one at once. Returned only here: it is stored sealed and never shown again.
   */
  async rotateWebhookSecret(principal: Principal, projectId: string): Promise<{ projectId: string; secret: string }> {
    const project = await this.projects.findVisible(principal, projectId);
    const secret = randomBytes(WEBHOOK_SECRET_BYTES).toString('base64url');
    await this.dataSource.transaction(async (m) => {
      if (!(await this.repo.setWebhookSecret(project.id, sealSecret(this.keyring, secret, webhookSecretAad(project.id)), m))) throw notConnected(project.id);
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'git.webhook_secret_rotated', target: gitTarget(project) });
    });
    return { projectId: project.id, secret };
  }

  /**
   * The project as the webhook receiver sees it, its secret opened; null when there is
   * no such project or it is not connected. A secret that no longer opens (its key
   * dropped from LEADS_ENCRYPTION_KEYS) throws: the operator must see that, and the
   * receiver answers it like a server error so the forge retries.
   */
  async webhookTarget(projectId: string): Promise<WebhookTarget | null> {
    const found = await this.repo.findWebhookTarget(projectId);
    if (!found) return null;
    const { settings, workspaceId, slug } = found;
    const sealed: SealedSecret | null =
      settings.webhookKeyId && settings.webhookNonce && settings.webhookCiphertext
        ? { keyId: settings.webhookKeyId, nonce: settings.webhookNonce, ciphertext: settings.webhookCiphertext }
        : null;
    return {
      projectId: settings.projectId,
      workspaceId,
      slug,
      repository: settings.repository,
      productionBranch: settings.productionBranch,
      secret: sealed && openSecret(this.keyring, sealed, webhookSecretAad(projectId), `The webhook secret of project ${projectId}`),
      buildForkPullRequests: settings.buildForkPullRequests,
      forge: settings.forge,
    };
  }

  /**
   * Remembers which forge sent a verified delivery when the settings do not say: a
   * self-hosted GitLab or Gitea has no host name to recognise, and the builds need to
   * know which API to report to. A forge the user set is never overwritten.
   */
  async rememberForge(projectId: string, forge: GitForge): Promise<void> {
    await this.repo.setForgeIfUnset(projectId, forge);
  }

  async listEnv(principal: Principal, projectId: string): Promise<ProjectEnvVar[]> {
    const project = await this.projects.findVisible(principal, projectId);
    // Code-point order, whatever the database's collation.
    return (await this.repo.listEnv(project.id)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async putEnv(principal: Principal, projectId: string, name: string, value: string, targets: EnvTarget[]): Promise<ProjectEnvVar> {
    const project = await this.projects.findVisible(principal, projectId);
    const ordered = ENV_TARGETS.filter((t) => targets.includes(t));
    return this.dataSource.transaction(async (m) => {
      const saved = await this.repo.upsertEnv(project.id, name, ordered, sealSecret(this.keyring, value, envValueAad(project.id, name)), m);
      // The variable's name is its label; its value is never in the log.
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'env_var.set', target: envTarget(project, name), changes: ['value', 'targets'] });
      return saved;
    });
  }

  async removeEnv(principal: Principal, projectId: string, name: string): Promise<void> {
    const project = await this.projects.findVisible(principal, projectId);
    await this.dataSource.transaction(async (m) => {
      if (!(await this.repo.removeEnv(project.id, name, m))) {
        throw gitError('env_var_not_found', `Project ${project.id} has no environment variable ${name}`);
      }
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'env_var.deleted', target: envTarget(project, name) });
    });
  }

  /**
   * The opened value of one of the project's variables for `target`, or null when it has
   * none of that name for it: what a `Sign=NAME` proxy rule signs with (src/builds/build-proxy-secrets.ts),
   * as a build of that target would see it. Never logged, never answered.
   */
  async envValue(projectId: string, name: string, target: EnvTarget): Promise<string | null> {
    const found = (await this.repo.listEnv(projectId)).find((v) => v.name === name);
    if (!found || !found.targets.includes(target)) return null;
    return openSecret(
      this.keyring,
      { keyId: found.keyId, nonce: found.valueNonce, ciphertext: found.valueCiphertext },
      envValueAad(projectId, name),
      `Environment variable ${name} of project ${projectId}`,
    );
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
