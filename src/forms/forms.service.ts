import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService } from '../audit/audit-log.service';
import { notFound } from '../common/errors';
import { Paginated, paginated } from '../common/pagination';
import { csvRow } from '../leads/csv';
import { LeadsKeyring } from '../leads/keyring';
import type { Project } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import type { Principal } from '../shared/principal';
import { type After, type FormRow, FormsRepository, type SubmissionFilter, type SubmissionRow } from './forms.repository';
import { openFields, searchText, submissionAad, type SubmissionFields } from './submission-crypto';
import { matchesSearch, splitColumns } from './submission-search';

export interface OpenedSubmission {
  id: string;
  formId: string;
  fields: SubmissionFields;
  spam: boolean;
  spamReason: string | null;
  leadId: string | null;
  deploymentId: string;
  createdAt: Date;
}

export interface SubmissionsQuery {
  page: number;
  limit: number;
  search?: string;
  spam?: boolean;
}

/** Rows read per round trip while searching or exporting. */
const BATCH = 500;

/**
 * Reading and curating a project's forms and their submissions (issue 30): listing,
 * search over the sealed values (blind-index candidates, then decrypted and checked, as
 * leads are), CSV export, spam marking and erasure, each keeping the form's counters
 * right. Submissions are opened only on the way out.
 */
@Injectable()
export class FormsService {
  private readonly logger = new Logger('Forms');

  constructor(
    private readonly dataSource: DataSource,
    private readonly forms: FormsRepository,
    private readonly keyring: LeadsKeyring,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLogService,
  ) {}

  /** `GET /projects/:projectId/forms`. */
  async list(principal: Principal, projectId: string): Promise<FormRow[]> {
    const project = await this.projects.findVisible(principal, projectId);
    return this.forms.listOfProject(project.id);
  }

  /** `GET /projects/:projectId/forms/:formId/submissions`. */
  async submissions(principal: Principal, projectId: string, formId: string, query: SubmissionsQuery): Promise<Paginated<OpenedSubmission>> {
    const { project, form } = await this.formOf(principal, projectId, formId);
    const filter: SubmissionFilter = { formId: form.id, spam: query.spam };
    const { page, limit } = query;
    const offset = (page - 1) * limit;
    if (!query.search) {
      const [total, rows] = await Promise.all([this.forms.count(filter), this.forms.page(filter, limit, offset)]);
      return paginated(this.openAll(form.id, rows), total, page, limit);
    }
    let total = 0;
    const shown: OpenedSubmission[] = [];
    for await (const s of this.matching(project, filter, query.search)) {
      if (total >= offset && shown.length < limit) shown.push(s);
      total++;
    }
    return paginated(shown, total, page, limit);
  }

  /** `GET …/submissions/export`: checks access first, then yields CSV lines (the form's fields as columns). */
  async export(
    principal: Principal,
    projectId: string,
    formId: string,
    query: { search?: string; spam?: boolean },
  ): Promise<{ filename: string; lines: AsyncGenerator<string> }> {
    const { project, form } = await this.formOf(principal, projectId, formId);
    const filter: SubmissionFilter = { formId: form.id, spam: query.spam };
    return { filename: `${project.slug}-${safeFileName(form.name)}-submissions.csv`, lines: this.csvLines(project, form, filter, query.search) };
  }

  /** `PATCH …/submissions/:submissionId`: marks it spam (reason `user`) or ham, moving one count between the form's counters. */
  async setSpam(principal: Principal, projectId: string, formId: string, submissionId: string, spam: boolean): Promise<OpenedSubmission> {
    const formRowId = await this.dataSource.transaction(async (m) => {
      const { form } = await this.lockedForm(m, principal, projectId, formId);
      const changed = await this.forms.setSpam(m, form.id, submissionId, spam, spam ? 'user' : null);
      if (!changed) throw notFound('Submission', submissionId);
      if (changed.was !== spam) await this.forms.adjustCounts(m, form.id, spam ? -1 : 1, spam ? 1 : -1);
      return form.id;
    });
    const row = await this.forms.findSubmission(formRowId, submissionId);
    const opened = row && this.open(formRowId, row);
    if (!opened) throw notFound('Submission', submissionId);
    return opened;
  }

  /** `DELETE …/submissions/:submissionId`: erases the row and its ciphertext at once. */
  async erase(principal: Principal, projectId: string, formId: string, submissionId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const { project, form } = await this.lockedForm(m, principal, projectId, formId);
      const gone = await this.forms.deleteOne(m, form.id, submissionId);
      if (!gone) throw notFound('Submission', submissionId);
      await this.forms.adjustCounts(m, form.id, gone.spam ? 0 : -1, gone.spam ? -1 : 0);
      // Labelled by the form's name: what the submission held is what the erasure removes.
      await this.audit.record(m, {
        workspaceId: project.workspaceId,
        action: 'form_submission.erased',
        target: { type: 'form_submission', id: submissionId, label: form.name },
      });
    });
  }

  /** `DELETE …/submissions`: erases every submission of the form (the form stays). */
  async eraseAll(principal: Principal, projectId: string, formId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const { project, form } = await this.lockedForm(m, principal, projectId, formId);
      const gone = await this.forms.deleteAll(m, form.id);
      await this.forms.adjustCounts(m, form.id, -gone.ham, -gone.spam);
      await this.audit.record(m, {
        workspaceId: project.workspaceId,
        action: 'form.submissions_erased',
        target: { type: 'form', id: formId, label: form.name },
      });
    });
  }

  private async formOf(principal: Principal, projectId: string, formId: string): Promise<{ project: Project; form: FormRow }> {
    const project = await this.projects.findVisible(principal, projectId);
    const form = await this.forms.findOfProject(this.dataSource.manager, project.id, formId, false);
    if (!form) throw notFound('Form', formId);
    return { project, form };
  }

  /** The form, locked so that the intake's counter changes wait for this transaction's. */
  private async lockedForm(m: EntityManager, principal: Principal, projectId: string, formId: string): Promise<{ project: Project; form: FormRow }> {
    const project = await this.projects.findVisible(principal, projectId, m);
    const form = await this.forms.findOfProject(m, project.id, formId, true);
    if (!form) throw notFound('Form', formId);
    return { project, form };
  }

  /**
   * Every submission of the filter whose values contain `search` (case-insensitively),
   * newest first. Candidates come from the blind index (rows under another index key
   * are all candidates); each is decrypted and checked, since the tokens also let
   * through rows that only share buckets with the term or hold its trigrams apart.
   */
  private async *matching(project: Project, filter: SubmissionFilter, search: string): AsyncGenerator<OpenedSubmission> {
    const term = searchText(search);
    const index = this.keyring.index(project.workspaceId);
    const tokens = { indexKeyId: index.keyId, tokens: index.tokens(term) };
    for await (const s of this.scan(filter, tokens)) if (matchesSearch(s.fields, term)) yield s;
  }

  /** The filter's submissions newest first, opened, `BATCH` rows per query. */
  private async *scan(filter: SubmissionFilter, tokens?: { indexKeyId: string; tokens: number[] }): AsyncGenerator<OpenedSubmission> {
    let after: After | undefined;
    for (;;) {
      const rows = await this.forms.batch(filter, tokens, after, BATCH);
      yield* this.openAll(filter.formId, rows);
      if (rows.length < BATCH) return;
      after = rows[rows.length - 1];
    }
  }

  private async *csvLines(project: Project, form: FormRow, filter: SubmissionFilter, search?: string): AsyncGenerator<string> {
    yield csvRow(['id', 'createdAt', 'spam', ...form.fields, 'otherFields']);
    const rows = search ? this.matching(project, filter, search) : this.scan(filter);
    let chunk = '';
    for await (const s of rows) {
      const { known, other } = splitColumns(form.fields, s.fields);
      chunk += csvRow([s.id, s.createdAt.toISOString(), String(s.spam), ...known, other]);
      if (chunk.length >= 64 * 1024) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }

  private openAll(formId: string, rows: SubmissionRow[]): OpenedSubmission[] {
    return rows.flatMap((row) => this.open(formId, row) ?? []);
  }

  /** A row's fields, authenticated; a row that does not open is left out and logged, never shown as garbage. */
  private open(formId: string, row: SubmissionRow): OpenedSubmission | null {
    const key = this.keyring.key(row.key_id);
    const fields = key ? openFields(key, { nonce: row.nonce, ciphertext: row.ciphertext }, submissionAad(formId, row.id)) : null;
    if (!fields) {
      this.logger.error(
        key
          ? `submission ${row.id} of form ${formId} failed authentication under key ${row.key_id} (ciphertext, nonce or row binding altered): left out`
          : `submission ${row.id} of form ${formId} is sealed with key id ${row.key_id}, which is not configured in LEADS_ENCRYPTION_KEYS: left out`,
      );
      return null;
    }
    return {
      id: row.id,
      formId,
      fields,
      spam: row.spam,
      spamReason: row.spam_reason,
      leadId: row.lead_id,
      deploymentId: row.deployment_id,
      createdAt: row.created_at,
    };
  }
}

/** A form name as a file name part: what a download dialog accepts everywhere. */
function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'form';
}
