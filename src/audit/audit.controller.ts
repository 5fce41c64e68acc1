import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { Controller, Get, Logger, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { ApiPaginatedOk } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { AuditEntryView, AuditVerifyView } from './audit.view';
import { AuditQueryService } from './audit-query.service';
import { AuditFilterQueryDto, AuditLogQueryDto } from './dto/audit-query.dto';

/**
 * A workspace's audit log, for its owners and admins, and for a workspace-wide API token
 * with the `admin` scope (a SIEM pulling the export): `admin` is what an owner or an
 * admin's role grants, and what a token needs to change what the log records.
 */
@ApiTags('audit-log')
@Controller('workspaces/:workspaceId/audit-log')
export class AuditController {
  private readonly logger = new Logger('AuditLog');

  constructor(private readonly audit: AuditQueryService) {}

  @Get()
  @Endpoint({ id: 'listAuditLog', scopes: ['admin'], workspaceWide: true })
  @ApiOperation({
    summary: "The workspace's audit log, newest first",
    description: '`action` is an action or a prefix ending in `.` (`project.`); `actor` and `target` are ids; `from` and `to` bound `at`, both included.',
  })
  @ApiPaginatedOk(AuditEntryView)
  list(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string, @Query() query: AuditLogQueryDto) {
    return this.audit.list(principal, workspaceId, query);
  }

  @Get('export')
  @Endpoint({ id: 'exportAuditLog', scopes: ['admin'], workspaceWide: true })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'CSV with a header line', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiOperation({ summary: 'Every entry matching the filters as CSV, newest first, streamed; `changes` are space-separated' })
  async export(
    @CurrentPrincipal() principal: Principal,
    @Param('workspaceId') workspaceId: string,
    @Query() query: AuditFilterQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const { filename, lines } = this.audit.export(principal, workspaceId, query);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    try {
      await pipeline(Readable.from(lines), res);
    } catch (err) {
      // Headers are gone by now: the client sees a cut-off download, the log says why.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.error(`export of ${workspaceId}'s audit log failed: ${(err as Error).message}`);
    }
  }

  @Get('verify')
  @Endpoint({ id: 'verifyAuditLog', scopes: ['admin'], workspaceWide: true })
  @ApiOperation({
    summary: "Check the workspace's hash chain and report its first broken link",
    description:
      'Each entry carries the hash of the one before it. An entry changed, removed or reordered in the database breaks the chain there. ' +
      '`headHash` is the hash of the newest entry: kept outside the service, it also exposes a rewrite of the whole chain (docs/audit-log.md).',
  })
  @ApiOkResponse({ type: AuditVerifyView })
  verify(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string): Promise<AuditVerifyView> {
    return this.audit.verify(principal, workspaceId);
  }
}
