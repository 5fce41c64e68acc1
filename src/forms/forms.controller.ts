import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { Body, Controller, Get, Logger, Param, Patch, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { paginated } from '../common/pagination';
import { ApiProjectRoutes, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { spamFilter, SubmissionsExportQueryDto, SubmissionsQueryDto, UpdateSubmissionDto } from './dto/forms.dto';
import { FormListDto, formView, SubmissionDto, SubmissionsPageDto, submissionView } from './form.view';
import { FormsService } from './forms.service';

/**
 * Reading a project's forms and their submissions (issue 30). Who may: as leads, any
 * credential with `read` reads (submissions are visitors' data like leads' emails);
 * changing or erasing them takes `delete` (docs/decisions.md).
 */
@ApiProjectRoutes('forms')
@Controller('projects')
export class FormsController {
  private readonly logger = new Logger('Forms');

  constructor(private readonly forms: FormsService) {}

  @Get(':projectId/forms')
  @Endpoint({ id: 'listForms', scopes: ['read'] })
  @ApiOperation({ summary: 'The project’s forms (declared by its deployments), by name, with their counts' })
  @ApiOkResponse({ type: FormListDto })
  async list(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<FormListDto> {
    return { data: (await this.forms.list(principal, projectId)).map(formView) };
  }

  @Get(':projectId/forms/:formId/submissions')
  @Endpoint({ id: 'listFormSubmissions', scopes: ['read'] })
  @ApiOperation({ summary: 'A form’s submissions, decrypted, newest first; `search` within any value, `spam` to filter' })
  @ApiOkResponse({ type: SubmissionsPageDto })
  async submissions(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Param('formId') formId: string,
    @Query() query: SubmissionsQueryDto,
  ): Promise<SubmissionsPageDto> {
    const page = await this.forms.submissions(principal, projectId, formId, {
      page: query.page,
      limit: query.limit,
      search: query.search,
      spam: spamFilter(query.spam),
    });
    return paginated(page.data.map(submissionView), page.meta.total, page.meta.page, page.meta.limit);
  }

  @Get(':projectId/forms/:formId/submissions/export')
  @Endpoint({ id: 'exportFormSubmissions', scopes: ['read'] })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'CSV with a header line', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiOperation({
    summary:
      'A form’s submissions as CSV (id, createdAt, spam, one column per field of the form, otherFields as JSON), newest first, streamed; `search` and `spam` filter as in the list',
  })
  async export(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Param('formId') formId: string,
    @Query() query: SubmissionsExportQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const { filename, lines } = await this.forms.export(principal, projectId, formId, { search: query.search, spam: spamFilter(query.spam) });
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    try {
      await pipeline(Readable.from(lines), res);
    } catch (err) {
      // Headers are gone by now: the client sees a cut-off download, the log says why.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') this.logger.error(`export of form ${formId} failed: ${(err as Error).message}`);
    }
  }

  @Patch(':projectId/forms/:formId/submissions/:submissionId')
  @Endpoint({
    id: 'updateFormSubmission',
    scopes: ['delete'],
    audit: { none: 'moderation: marks a submission spam or not; nothing is erased or disclosed (erasures are audited)' },
  })
  @ApiOperation({ summary: 'Mark a submission as spam or not spam; the form’s counts follow' })
  @ApiOkResponse({ type: SubmissionDto })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Param('formId') formId: string,
    @Param('submissionId') submissionId: string,
    @Body() dto: UpdateSubmissionDto,
  ): Promise<SubmissionDto> {
    return submissionView(await this.forms.setSpam(principal, projectId, formId, submissionId, dto.spam));
  }

  @DeleteRoute(':projectId/forms/:formId/submissions/:submissionId', 'Erase a submission (GDPR erasure): the row and its ciphertext are deleted')
  @Endpoint({ id: 'eraseFormSubmission', scopes: ['delete'], audit: 'form_submission.erased' })
  async erase(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Param('formId') formId: string,
    @Param('submissionId') submissionId: string,
  ): Promise<void> {
    await this.forms.erase(principal, projectId, formId, submissionId);
  }

  @DeleteRoute(':projectId/forms/:formId/submissions', 'Erase every submission of a form (the form stays, its counts at zero)')
  @Endpoint({ id: 'eraseFormSubmissions', scopes: ['delete'], audit: 'form.submissions_erased' })
  async eraseAll(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('formId') formId: string): Promise<void> {
    await this.forms.eraseAll(principal, projectId, formId);
  }
}
