import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, ValidateIf } from 'class-validator';

import { NullableStringProperty } from '../../common/dto-fields';
import { ENV_TARGETS, type EnvTarget } from '../build-inputs';
import type { GitForge } from '../git.repository';
import {
  accessTokenProblem,
  branchNameProblem,
  commandProblem,
  envValueProblem,
  MAX_ACCESS_TOKEN,
  MAX_BRANCH,
  MAX_COMMAND_BYTES,
  MAX_DIRECTORY,
  MAX_NODE_VERSION,
  nodeVersionProblem,
  normalizeDirectory,
} from '../git-fields';
import { MAX_REPOSITORY_URL } from '../repository-url';
import { CheckedString } from './checked-string';

/** The forges whose API builds report to (src/forges); listed here since git sits below that module. */
export const GIT_FORGES = ['github', 'gitlab', 'gitea', 'forgejo'] as const satisfies readonly GitForge[];

const directoryProblem = (value: string) => {
  const result = normalizeDirectory(value);
  return 'problem' in result ? result.problem : null;
};

/**
 * PUT /projects/:projectId/git. A PUT replaces the settings: an optional field left out
 * or null is unset (commands and output directory are then detected at build time),
 * except accessToken, which is kept when left out and removed by null.
 */
export class PutGitSettingsDto {
  @ApiProperty({
    maxLength: MAX_REPOSITORY_URL,
    example: 'https://github.com/acme/site.git',
    description:
      'The https:// clone URL (any forge). Refused with 400 repository_not_allowed: other transports, credentials in the URL, private or loopback addresses',
  })
  @IsString()
  @IsNotEmpty()
  repository: string;

  @ApiProperty({ maxLength: MAX_BRANCH, example: 'main', description: 'The branch whose builds go live' })
  @IsString()
  @CheckedString('branchName', branchNameProblem)
  productionBranch: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_DIRECTORY,
    example: 'site',
    description: 'The site’s folder in the repository; unset: the root',
  })
  @IsOptional()
  @IsString()
  @CheckedString('directory', directoryProblem)
  rootDirectory?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_COMMAND_BYTES, example: 'npm ci', description: 'Unset: detected from the lock file' })
  @IsOptional()
  @IsString()
  @CheckedString('command', commandProblem)
  installCommand?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_COMMAND_BYTES,
    example: 'npm run build',
    description: 'Unset: detected from the framework',
  })
  @IsOptional()
  @IsString()
  @CheckedString('command', commandProblem)
  buildCommand?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_DIRECTORY, example: 'dist', description: 'Relative to rootDirectory; unset: detected' })
  @IsOptional()
  @IsString()
  @CheckedString('directory', directoryProblem)
  outputDirectory?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_NODE_VERSION,
    example: '22',
    description: 'A Node major or short range (`20`, `22.x`, `>=20`); unset: the image’s',
  })
  @IsOptional()
  @IsString()
  @CheckedString('nodeVersion', nodeVersionProblem)
  nodeVersion?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    maxLength: MAX_ACCESS_TOKEN,
    description: 'Token of a private repository (sent as the HTTP password). Stored encrypted, never returned; left out: kept; null: removed',
  })
  @ValidateIf((o: PutGitSettingsDto) => o.accessToken !== null)
  @IsOptional()
  @IsString()
  @CheckedString('accessToken', accessTokenProblem)
  accessToken?: string | null;

  @ApiPropertyOptional({
    description:
      'Build pull requests whose head is in another repository (a fork), without the project’s environment variables; left out: kept (default false)',
  })
  @IsOptional()
  @IsBoolean()
  buildForkPullRequests?: boolean;

  @ApiPropertyOptional({
    enum: GIT_FORGES,
    nullable: true,
    description: 'Which forge’s API statuses and comments go to; null: known from the repository’s host or the first verified webhook delivery; left out: kept',
  })
  @ValidateIf((o: PutGitSettingsDto) => o.forge !== null)
  @IsOptional()
  @IsIn(GIT_FORGES)
  forge?: GitForge | null;
}

export class GitSettingsView {
  @ApiProperty({ example: 'proj_0123456789abcdefghijklmn' })
  projectId: string;
  @ApiProperty({ example: 'https://github.com/acme/site.git' })
  repository: string;
  @ApiProperty({ example: 'main' })
  productionBranch: string;
  @ApiProperty({ example: '', description: '"" for the repository’s root' })
  rootDirectory: string;
  @NullableStringProperty({ example: 'npm ci' })
  installCommand: string | null;
  @NullableStringProperty({ example: 'npm run build' })
  buildCommand: string | null;
  @NullableStringProperty({ example: 'dist' })
  outputDirectory: string | null;
  @NullableStringProperty({ example: '22' })
  nodeVersion: string | null;
  @ApiProperty({ description: 'Whether an access token is stored (the token itself is never returned)' })
  hasAccessToken: boolean;
  @ApiProperty({ example: 'https://api.example.com/hooks/git/proj_0123456789abcdefghijklmn', description: 'Where the forge sends push events' })
  webhookUrl: string;
  @ApiProperty({
    description: 'Whether a webhook secret is set (POST …/git/webhook-secret creates one and shows it once); without one every delivery is refused',
  })
  hasWebhookSecret: boolean;
  @ApiProperty({ description: 'Whether pull requests from forks are built (without the project’s environment variables)' })
  buildForkPullRequests: boolean;
  @ApiProperty({
    enum: GIT_FORGES,
    nullable: true,
    type: String,
    description: 'The forge set, or learnt from a verified delivery; null: inferred from the repository’s host',
  })
  forge: GitForge | null;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  updatedAt: string;
}

/** POST /projects/:projectId/git/webhook-secret: the only time the secret is shown. */
export class WebhookSecretView {
  @ApiProperty({ example: 'https://api.example.com/hooks/git/proj_0123456789abcdefghijklmn', description: 'The payload URL to give the forge' })
  webhookUrl: string;
  @ApiProperty({
    example: 'q3Xr0bVvO2x8m5Jd3aKQ5Y3wN8l1yZr7c9T6bE4uH0s',
    description:
      'The secret to give the forge (GitHub, Gitea, Forgejo: “Secret”; GitLab: “Secret token”). Shown only now; the previous one stops working at once',
  })
  secret: string;
}

/** PUT /projects/:projectId/env/:name. */
export class PutEnvVarDto {
  @ApiProperty({ writeOnly: true, description: 'Stored encrypted; only builds see it, and their logs show it as ***' })
  @IsString()
  @CheckedString('envValue', envValueProblem)
  value: string;

  @ApiProperty({ enum: ENV_TARGETS, isArray: true, example: ['production', 'preview'], description: 'Which builds get it' })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(ENV_TARGETS, { each: true })
  targets: EnvTarget[];
}

export class EnvVarView {
  @ApiProperty({ example: 'API_URL' })
  name: string;
  @ApiProperty({ enum: ENV_TARGETS, isArray: true })
  targets: EnvTarget[];
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  updatedAt: string;
}

export class EnvVarListView {
  @ApiProperty({ type: [EnvVarView], description: 'Sorted by name; values are never returned' })
  data: EnvVarView[];
}
