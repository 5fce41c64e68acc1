import { iso } from '../common/time';
import type { EnvVarView, GitSettingsView } from './dto/git-settings.dto';
import type { ProjectEnvVar, ProjectGit } from './git.entities';

/** Where a forge sends the project's push events (issue #29 answers there). */
export function webhookUrl(apiBaseUrl: string, projectId: string): string {
  return `${apiBaseUrl}/hooks/git/${projectId}`;
}

/** The settings as the API shows them: never the token, only whether there is one. */
export function gitSettingsView(row: ProjectGit, apiBaseUrl: string): GitSettingsView {
  return {
    projectId: row.projectId,
    repository: row.repository,
    productionBranch: row.productionBranch,
    rootDirectory: row.rootDirectory,
    installCommand: row.installCommand,
    buildCommand: row.buildCommand,
    outputDirectory: row.outputDirectory,
    nodeVersion: row.nodeVersion,
    hasAccessToken: row.tokenCiphertext !== null,
    webhookUrl: webhookUrl(apiBaseUrl, row.projectId),
    hasWebhookSecret: row.webhookCiphertext !== null,
    buildForkPullRequests: row.buildForkPullRequests,
    forge: row.forge,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** A variable as the API shows it: never its value. */
export function envVarView(row: ProjectEnvVar): EnvVarView {
  return { name: row.name, targets: row.targets, updatedAt: iso(row.updatedAt) };
}
