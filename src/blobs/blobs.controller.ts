import { Controller, HttpStatus, Param, Put, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { unsupportedMediaType } from '../common/errors';
import { closeAfterAnswer } from '../common/lingering-close';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { BlobView } from './blob.view';
import { BlobsService } from './blobs.service';

@ApiTags('blobs')
@ApiBearerAuth('bearer')
@Controller('v1/blobs')
export class BlobsController {
  constructor(private readonly blobs: BlobsService) {}

  @Put(':sha256')
  @Endpoint({
    id: 'uploadBlob',
    scopes: ['deploy'],
    audit: { none: 'content only: bytes addressed by their hash serve nothing until a deploy (audited) names them' },
    errors: { 400: ['invalid_sha256', 'sha256_mismatch'], 413: ['payload_too_large'], 415: ['unsupported_media_type'], 503: ['storage_unavailable'] },
  })
  // Any credential with `deploy`: the CLI's token, or the dashboard's JWT (X-Workspace-Id), whose
  // folder deploys go digest first too. Blobs belong to the workspace either way.
  @ApiOperation({
    summary: 'Upload one file’s bytes by their SHA-256, for digest-only deploys',
    description:
      'The raw bytes (`application/octet-stream`, not JSON), checked against `:sha256` (mismatch: 400, nothing stored). ' +
      'Idempotent: when the workspace already has the blob the answer is 200 at once and the body is not read; otherwise 201. ' +
      'A deploy may then list the file as `{path, sha256, size}` instead of `{path, content}`. ' +
      'Blobs no deployment references are deleted after the garbage-collection grace period (`BLOB_GC_GRACE_SECONDS`).',
  })
  @ApiParam({ name: 'sha256', description: 'SHA-256 of the body, 64 hexadecimal characters' })
  @ApiConsumes('application/octet-stream')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiCreatedResponse({ type: BlobView, description: 'Stored (or verified and recorded for this workspace)' })
  @ApiOkResponse({ type: BlobView, description: 'The workspace already had it (deployed it, or uploaded it in the last 24 hours); the body was not read' })
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param('sha256') sha256: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BlobView> {
    if (req.is('json')) {
      // The JSON parser has already consumed it: the bytes are no longer what was sent.
      throw unsupportedMediaType('Send the raw bytes with Content-Type: application/octet-stream, not JSON');
    }
    const length = req.headers['content-length'];
    try {
      const result = await this.blobs.upload(principal, sha256, { body: req, contentLength: length === undefined ? undefined : Number(length) });
      res.status(result.created ? HttpStatus.CREATED : HttpStatus.OK);
      return { sha256: result.sha256, size: result.size };
    } catch (err) {
      // A refused body is not drained: the connection closes after the answer. An unread
      // body of an accepted request (already stored) is drained by Node instead, so a
      // client still sending it gets the answer rather than a broken pipe.
      if (!req.complete) closeAfterAnswer(req, res);
      throw err;
    }
  }
}
