import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { Controller, Get, Logger, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { paginated } from '../common/pagination';
import { ApiProjectRoutes, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { LeadsExportQueryDto, ProjectLeadsQueryDto, WorkspaceLeadsQueryDto } from './dto/leads-query.dto';
import { LeadsPageDto, leadView, WorkspaceLeadsPageDto, workspaceLeadView } from './lead.view';
import { LeadsService, MAX_SEARCH_RESULTS } from './leads.service';

const SEARCH_WINDOW = `With \`search\`, pages end at the newest ${MAX_SEARCH_RESULTS} matches (a later page is a 400 naming \`page\`); the export has them all.`;

@ApiProjectRoutes('leads')
@Controller('projects')
export class LeadsController {
  private readonly logger = new Logger('Leads');

  constructor(private readonly leads: LeadsService) {}

  @Get('gate/leads')
  @Endpoint({ id: 'listWorkspaceLeads', scopes: ['read'], errors: { 404: ['not_found'] } })
  @ApiOperation({
    summary: 'Leads of every project of the workspace (or of `projectId`), newest first; a project-bound token sees its project only',
    description: SEARCH_WINDOW,
  })
  @ApiOkResponse({ type: WorkspaceLeadsPageDto })
  async listWorkspace(@CurrentPrincipal() principal: Principal, @Query() query: WorkspaceLeadsQueryDto) {
    const page = await this.leads.listWorkspace(principal, query);
    return paginated(page.data.map(workspaceLeadView), page.meta.total, page.meta.page, page.meta.limit);
  }

  @Get(':projectId/gate/leads')
  @Endpoint({ id: 'listProjectLeads', scopes: ['read'] })
  @ApiOperation({ summary: 'Leads captured by the project’s email gate, newest first', description: SEARCH_WINDOW })
  @ApiOkResponse({ type: LeadsPageDto })
  async listProject(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Query() query: ProjectLeadsQueryDto) {
    const page = await this.leads.listProject(principal, projectId, query);
    return paginated(page.data.map(leadView), page.meta.total, page.meta.page, page.meta.limit);
  }

  @Get(':projectId/gate/leads/export')
  @Endpoint({ id: 'exportProjectLeads', scopes: ['read'] })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'CSV with a header line', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiOperation({ summary: 'The project’s leads as CSV (id, email, capturedAt), newest first, streamed; `search` filters as in the list' })
  async export(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Query() query: LeadsExportQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const { filename, lines } = await this.leads.exportProject(principal, projectId, query.search);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    try {
      await pipeline(Readable.from(lines), res);
    } catch (err) {
      // Headers are gone by now: the client sees a cut-off download, the log says why.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.error(`export of project ${projectId} failed: ${(err as Error).message}`);
    }
  }

  @DeleteRoute(':projectId/gate/leads/:leadId', 'Erase a lead (GDPR erasure): the row and its ciphertext are deleted')
  @Endpoint({ id: 'eraseLead', scopes: ['delete'], audit: 'lead.erased' })
  async erase(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('leadId') leadId: string): Promise<void> {
    await this.leads.erase(principal, projectId, leadId);
  }
}
