import { Controller, HttpStatus, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import getRawBody from 'raw-body';

import { clientAddress } from '../common/client-address';
import { AppConfig } from '../config/app-config';
import { Endpoint } from '../openapi/endpoint';
import { HookBuildView, HookDuplicateView, HookIgnoredView, HookPingView, HookRemovedView } from './dto/hook-views.dto';
import { HooksService } from './hooks.service';

/** Where forges deliver; app.factory.ts keeps the JSON parser off it, as signatures are over the raw bytes. */
export const GIT_HOOKS_PATH = '/hooks/git/';

@ApiTags('hooks')
@ApiExtraModels(HookPingView, HookDuplicateView, HookIgnoredView, HookBuildView, HookRemovedView)
@Controller('hooks')
export class HooksController {
  constructor(
    private readonly hooks: HooksService,
    private readonly config: AppConfig,
  ) {}

  @Post('git/:projectId')
  @Endpoint({
    id: 'receiveGitWebhook',
    public: true,
    // Recorded as the system ("git webhook") when a push or pull request starts one; pings, duplicates and ignored events change nothing.
    audit: 'build.started',
    errors: {
      400: ['invalid_webhook_payload', 'repository_mismatch', 'invalid_ref'],
      401: ['invalid_webhook_signature'],
      402: ['quota_exceeded'],
      413: ['payload_too_large'],
      429: ['rate_limited'],
      503: ['builds_unavailable'],
    },
  })
  @ApiOperation({
    summary: 'Receive a GitHub, GitLab, Gitea or Forgejo webhook delivery',
    description:
      'Authenticated by the project’s webhook secret (GitHub `X-Hub-Signature-256`, GitLab `X-Gitlab-Token`, Gitea `X-Gitea-Signature`, Forgejo `X-Forgejo-Signature`), ' +
      'checked over the raw body before it is parsed. A push to the production branch builds and publishes; a push to another branch, or a pull request opened, ' +
      'updated or reopened, builds a preview; a deleted branch or a closed pull request removes its preview alias. A delivery id seen before starts nothing (200 `duplicate`). ' +
      'Refused deliveries are counted per client address (429 past 30 a minute).',
  })
  @ApiBody({ description: 'The forge’s JSON payload, as it sends it', schema: { type: 'object' } })
  @ApiResponse({
    status: 200,
    description: 'A ping, a redelivery, or an alias removed',
    schema: { oneOf: [HookPingView, HookDuplicateView, HookRemovedView].map((m) => ({ $ref: getSchemaPath(m) })) },
  })
  @ApiResponse({
    status: 202,
    description: 'A build was queued, or the event is ignored (and why)',
    schema: { oneOf: [HookBuildView, HookIgnoredView].map((m) => ({ $ref: getSchemaPath(m) })) },
  })
  async receive(@Param('projectId') projectId: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<object> {
    const address = clientAddress(req, this.config.trustProxy);
    await this.hooks.assertNotThrottled(address);
    const answer = await this.hooks.receive(projectId, req.headers, await this.readBody(req), address);
    res.status(answer.status === 200 ? HttpStatus.OK : HttpStatus.ACCEPTED);
    return answer.body;
  }

  /** The exact bytes, at most GIT_WEBHOOK_MAX_BYTES: a larger declared length is refused before a byte is read, a longer body as soon as it passes. */
  private async readBody(req: Request): Promise<Buffer> {
    const limit = this.hooks.maxBytes;
    const header = req.headers['content-length'];
    const declared = header === undefined ? undefined : Number(header);
    if (declared !== undefined && declared > limit) throw this.hooks.tooLarge(declared);
    try {
      return await getRawBody(req, { length: declared, limit });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') throw this.hooks.tooLarge();
      throw err;
    }
  }
}
