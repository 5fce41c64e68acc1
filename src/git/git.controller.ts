import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { badRequest } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { ApiProjectRoutes, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { EnvVarListView, EnvVarView, GitSettingsView, PutEnvVarDto, PutGitSettingsDto, WebhookSecretView } from './dto/git-settings.dto';
import { envVarView, gitSettingsView, webhookUrl } from './git.view';
import { ENV_NAME, normalizeDirectory } from './git-fields';
import { GitSettingsService } from './git-settings.service';

/** A directory the DTO has already checked, in its stored form. */
function directory(value: string | null | undefined): string | null {
  if (value == null) return null;
  const result = normalizeDirectory(value);
  return 'value' in result ? result.value : null;
}

function envName(name: string): string {
  if (!ENV_NAME.test(name)) {
    throw badRequest(`name: ${JSON.stringify(name.slice(0, 64))} is not a variable name (letters, digits and _, not starting with a digit, at most 256)`);
  }
  return name;
}

const ENV_NAME_PARAM = ApiParam({ name: 'name', example: 'API_URL', description: 'Letters, digits and _, not starting with a digit (at most 256)' });

@ApiProjectRoutes('git')
@Controller('projects')
export class GitController {
  constructor(
    private readonly git: GitSettingsService,
    private readonly config: AppConfig,
  ) {}

  @Put(':projectId/git')
  @Endpoint({
    id: 'putGitSettings',
    scopes: ['admin'],
    errors: { 400: ['repository_not_allowed'], 503: ['repository_lookup_failed'] },
    audit: 'git.connected',
  })
  @ApiOperation({
    summary: 'Connect the project to a Git repository, or change how it builds',
    description:
      'Replaces the settings: optional fields left out or null are unset (detected at build time). `accessToken`: a string sets it, null removes it, left out keeps it; it is never returned. `buildForkPullRequests` and `forge` left out keep their values.',
  })
  @ApiOkResponse({ type: GitSettingsView })
  @ApiResponse({ status: 400, description: '`repository_not_allowed`: the message says why (transport, credentials, private address…)' })
  @ApiResponse({ status: 503, description: '`repository_lookup_failed`: DNS did not answer for the repository’s host; nothing changed' })
  async put(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Body() dto: PutGitSettingsDto): Promise<GitSettingsView> {
    const saved = await this.git.put(principal, projectId, {
      repository: dto.repository,
      productionBranch: dto.productionBranch,
      rootDirectory: directory(dto.rootDirectory) ?? '',
      installCommand: dto.installCommand ?? null,
      buildCommand: dto.buildCommand ?? null,
      outputDirectory: directory(dto.outputDirectory) || null,
      nodeVersion: dto.nodeVersion ?? null,
      accessToken: dto.accessToken,
      buildForkPullRequests: dto.buildForkPullRequests,
      forge: dto.forge,
    });
    return gitSettingsView(saved, this.config.apiBaseUrl);
  }

  @Get(':projectId/git')
  @Endpoint({ id: 'getGitSettings', scopes: ['read'], errors: { 404: ['git_not_connected'] } })
  @ApiOperation({ summary: 'The project’s Git settings (never the access token)' })
  @ApiOkResponse({ type: GitSettingsView })
  async get(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<GitSettingsView> {
    return gitSettingsView(await this.git.get(principal, projectId), this.config.apiBaseUrl);
  }

  @Post(':projectId/git/webhook-secret')
  @Endpoint({ id: 'rotateWebhookSecret', scopes: ['admin'], errors: { 404: ['git_not_connected'] }, audit: 'git.webhook_secret_rotated' })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Create or replace the webhook secret, shown only in this answer',
    description:
      'Deliveries to `webhookUrl` are refused until a secret exists. The new secret works at once and the previous one stops working: update the forge’s webhook with it.',
  })
  @ApiOkResponse({ type: WebhookSecretView })
  async rotateWebhookSecret(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<WebhookSecretView> {
    const { projectId: id, secret } = await this.git.rotateWebhookSecret(principal, projectId);
    return { webhookUrl: webhookUrl(this.config.apiBaseUrl, id), secret };
  }

  @DeleteRoute(':projectId/git', 'Disconnect the repository (the environment variables stay)')
  @Endpoint({ id: 'deleteGitSettings', scopes: ['admin'], errors: { 404: ['git_not_connected'] }, audit: 'git.disconnected' })
  async remove(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<void> {
    await this.git.remove(principal, projectId);
  }

  @Get(':projectId/env')
  @Endpoint({ id: 'listEnvVars', scopes: ['read'] })
  @ApiOperation({ summary: 'The project’s build environment variables: names and targets, never values' })
  @ApiOkResponse({ type: EnvVarListView })
  async listEnv(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<EnvVarListView> {
    return { data: (await this.git.listEnv(principal, projectId)).map(envVarView) };
  }

  @Put(':projectId/env/:name')
  @Endpoint({ id: 'putEnvVar', scopes: ['admin'], audit: 'env_var.set' })
  @ApiOperation({ summary: 'Set a build environment variable (created or replaced); the value is stored encrypted and never returned' })
  @ENV_NAME_PARAM
  @ApiOkResponse({ type: EnvVarView })
  async putEnv(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Param('name') name: string,
    @Body() dto: PutEnvVarDto,
  ): Promise<EnvVarView> {
    return envVarView(await this.git.putEnv(principal, projectId, envName(name), dto.value, dto.targets));
  }

  @DeleteRoute(':projectId/env/:name', 'Delete a build environment variable')
  @Endpoint({ id: 'deleteEnvVar', scopes: ['admin'], errors: { 404: ['env_var_not_found'] }, audit: 'env_var.deleted' })
  @ENV_NAME_PARAM
  async removeEnv(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('name') name: string): Promise<void> {
    await this.git.removeEnv(principal, projectId, envName(name));
  }
}
