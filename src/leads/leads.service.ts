import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService } from '../audit/audit-log.service';
import { isForeignKeyViolation } from '../common/db-errors';
import { badRequest, notFound } from '../common/errors';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { EventBus } from '../events/event-bus';
import { ProjectsRepository } from '../projects/projects.repository';
import { ProjectsService } from '../projects/projects.service';
import { type Principal, workspaceOf } from '../shared/principal';
import { csvRow } from './csv';
import { LeadsKeyring } from './keyring';
import { keystreamMatches, leadAad, NONCE_BYTES, normalizeLeadText, openEmail, SealedSlice, sealEmail, splitEmail } from './lead-crypto';
import { addDomain, removeDomainIfUnused } from './lead-domains';
import { type CandidateRow, type LeadScope, LeadsRepository, type StoredRow } from './leads.repository';
import { NewestK, Ranked } from './newest';

export type { LeadScope } from './leads.repository';

export interface OpenedLead {
  id: string;
  email: string;
  capturedAt: Date;
  projectId: string;
  projectName: string;
  projectSlug: string;
}

export interface LeadsPageQuery {
  page: number;
  limit: number;
  search?: string;
}

/** A new lead, or the one the project already has for this email; 'gone' when the project is. */
export type CaptureResult = { outcome: 'captured' | 'known'; leadId: string } | 'gone';

/** Rows per query while exporting. */
const EXPORT_BATCH = 1000;

/** How deep the pages of a search go (LeadsService.list). */
export const MAX_SEARCH_RESULTS = 10_000;

/**
 * Leads: capture (from the email gate), listing and search, CSV export and
 * erasure. Emails are sealed before they reach SQL and opened only on the way
 * out; see docs/security.md for what the stored digests reveal.
 */
@Injectable()
export class LeadsService {
  private readonly logger = new Logger('Leads');
  /** project → workspace; a project never changes workspace. */
  private readonly workspaceOfProject = new LRUCache<string, string>({ max: 10_000 });

  constructor(
    private readonly dataSource: DataSource,
    private readonly leads: LeadsRepository,
    private readonly keyring: LeadsKeyring,
    private readonly projects: ProjectsService,
    private readonly projectRows: ProjectsRepository,
    private readonly clock: Clock,
    private readonly events: EventBus,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * Stores a normalised email as a lead of the project, once per project: a
   * second capture of the same email keeps the first (and its capture time) and
   * answers its id. 'gone' when the project no longer exists.
   */
  async capture(projectId: string, email: string): Promise<CaptureResult> {
    const workspaceId = await this.workspaceOf(projectId);
    if (!workspaceId) return 'gone';
    const index = this.keyring.index(workspaceId);
    const key = this.keyring.current;
    const id = newId('lead');
    const sealed = sealEmail(key.key, email, leadAad(projectId, id));
    const { local, domain } = splitEmail(email);
    try {
      return await this.dataSource.transaction(async (m): Promise<CaptureResult> => {
        const domainHash = await addDomain(this.leads, m, this.keyring, workspaceId, domain);
        const lead = {
          id,
          workspaceId,
          projectId,
          keyId: key.id,
          emailNonce: sealed.nonce,
          emailCiphertext: sealed.ciphertext,
          indexKeyId: index.keyId,
          emailHash: index.emailHash(projectId, email),
          searchTokens: index.tokens(email),
          domainHash,
          localTokens: index.tokens(local),
          capturedAt: this.clock.now(),
        };
        // Each statement sees what committed before it: a lead erased between a conflict
        // and the look-up is inserted anew on the next round.
        let inserted = false;
        for (let round = 0; round < 3 && !inserted; round++) {
          inserted = await this.leads.insert(m, lead);
          const known = inserted ? undefined : await this.leads.idByEmailHash(m, projectId, lead.emailHash);
          if (known) return { outcome: 'known', leadId: known };
        }
        if (!inserted) throw new Error(`capture of a lead of project ${projectId}: neither inserted nor found after 3 rounds`);
        await this.leads.incrementCount(m, projectId, workspaceId);
        // The slug as of now (a project may be renamed), read only for a new lead.
        const project = await this.projectRows.getById(m, projectId);
        await this.events.emit(m, {
          type: 'lead.captured',
          workspaceId,
          timestamp: this.clock.now(),
          data: { projectId, projectSlug: project.slug, leadId: id },
          personal: { email },
        });
        return { outcome: 'captured', leadId: id };
      });
    } catch (err) {
      if (isForeignKeyViolation(err)) {
        this.workspaceOfProject.delete(projectId);
        return 'gone';
      }
      throw err;
    }
  }

  /** `GET /projects/:projectId/gate/leads`. */
  async listProject(principal: Principal, projectId: string, query: LeadsPageQuery): Promise<Paginated<OpenedLead>> {
    const project = await this.projects.findVisible(principal, projectId);
    return this.list({ workspaceId: project.workspaceId, projectId: project.id }, query);
  }

  /** `GET /projects/gate/leads`: the caller's workspace, or the one project a project-bound token sees. */
  async listWorkspace(principal: Principal, query: LeadsPageQuery & { projectId?: string }): Promise<Paginated<OpenedLead>> {
    const workspaceId = workspaceOf(principal);
    let projectId = principal.projectId ?? undefined;
    if (query.projectId !== undefined) projectId = (await this.projects.findVisible(principal, query.projectId)).id;
    return this.list({ workspaceId, projectId }, query);
  }

  /** `GET /projects/:projectId/gate/leads/export`: checks access first, then yields CSV lines. */
  async exportProject(principal: Principal, projectId: string, search?: string): Promise<{ filename: string; lines: AsyncGenerator<string> }> {
    const project = await this.projects.findVisible(principal, projectId);
    const scope = { workspaceId: project.workspaceId, projectId: project.id };
    return { filename: `${project.slug}-leads.csv`, lines: this.csvLines(scope, search) };
  }

  /** `DELETE /projects/:projectId/gate/leads/:leadId`: erases the row (and its ciphertext) at once. */
  async erase(principal: Principal, projectId: string, leadId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const project = await this.projects.findVisible(principal, projectId, m);
      const deleted = await this.leads.deleteOfProject(m, leadId, project.id);
      if (!deleted) throw notFound('Lead', leadId);
      await this.leads.decrementCount(m, project.id);
      await removeDomainIfUnused(this.leads, m, deleted.workspace_id, deleted.domain_hash);
      // No label: a lead's email is what the erasure removes.
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'lead.erased', target: { type: 'lead', id: leadId } });
    });
  }

  async list(scope: LeadScope, query: LeadsPageQuery): Promise<Paginated<OpenedLead>> {
    const { page, limit } = query;
    const offset = (page - 1) * limit;
    if (!query.search) {
      const [total, rows] = await Promise.all([this.leads.total(scope), this.leads.page(scope, limit, offset)]);
      return paginated(this.openAll(rows), total, page, limit);
    }
    // A search ranks every match it keeps in memory: its pages end at the newest
    // MAX_SEARCH_RESULTS (the export has them all), as a search engine's result window does.
    if (offset + limit > MAX_SEARCH_RESULTS) {
      throw badRequest(`page: a search pages through its newest ${MAX_SEARCH_RESULTS} matches; narrow it, or export them all`, 'validation_failed', {
        field: 'page',
      });
    }
    const found = await this.match(scope, query.search, offset + limit);
    const rows = await this.rowsByIds(found.newest.slice(offset, offset + limit).map((r) => r.id));
    return paginated(this.openAll(rows), found.total, page, limit);
  }

  /**
   * Every lead of the scope whose email contains `search` (case-insensitively):
   * their number and the `keep` newest. A term without '@' lies wholly in the local
   * part or the domain: the leads whose domain contains it are found through the
   * workspace's sealed domain dictionary and counted and ranked in SQL by domain
   * digest, never decrypted. The others are candidates from the trigram blind index
   * (of the local part; of the whole email for a term with '@' or a workspace not yet
   * in the dictionary; every lead for a term under 3 characters), decrypted in bulk
   * and checked, because the tokens also let through leads that only share buckets
   * with the term, or hold its trigrams apart.
   */
  async match(scope: LeadScope, search: string, keep: number): Promise<{ total: number; newest: Ranked[] }> {
    const term = normalizeLeadText(search);
    const needle = Buffer.from(term, 'utf8');
    const index = this.keyring.index(scope.workspaceId);
    const top = new NewestK<Ranked>(keep);
    const skipped = new Map<string, number>();
    let decided = 0;
    let pushed = 0;
    // One snapshot for the dictionary, the counts and the candidates, so that they add up.
    await this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const domains = term.includes('@') ? null : await this.domainsContaining(m, scope.workspaceId, term, needle);
      if (domains) {
        // Every lead with one of these domains matches: counted and ranked by index, never decrypted.
        if (domains.length > 0) {
          decided = await this.leads.countWithDomains(m, scope, domains);
          const newest = await this.leads.newestWithDomains(m, scope, domains, keep);
          for (const r of newest) top.push({ t: r.t, id: r.id });
          pushed = newest.length;
        }
        // The others match only if their local part holds the term.
        await this.leads.scanCandidates(m, { scope, otherDomainsThan: domains, localTokens: index.tokens(term) }, (rows) =>
          this.filterCandidates(rows, needle, top, skipped),
        );
      } else {
        await this.leads.scanCandidates(m, { scope, searchTokens: index.tokens(term) }, (rows) => this.filterCandidates(rows, needle, top, skipped));
      }
    });
    for (const [keyId, n] of skipped) {
      this.logger.error(
        `search left out ${n} lead(s) of workspace ${scope.workspaceId} sealed with key id ${keyId}, which is not configured in LEADS_ENCRYPTION_KEYS`,
      );
    }
    return { total: decided + top.count - pushed, newest: top.sorted() };
  }

  /**
   * The digests of the workspace's domains that contain `term` (which holds no '@'),
   * from its sealed domain dictionary; null when the dictionary cannot decide: some
   * leads predate it (until `npm run leads:rotate` fills them in), or one of its
   * entries is sealed with a key that is not configured.
   */
  private async domainsContaining(m: EntityManager, workspaceId: string, term: string, needle: Buffer): Promise<Buffer[] | null> {
    if (await this.leads.hasUnsplit(m, workspaceId)) return null;
    const index = this.keyring.index(workspaceId);
    const entries = await this.leads.domainEntries(m, workspaceId, index.keyId, index.tokens(term));
    const byKey = new Map<string, { hashes: Buffer[]; slices: SealedSlice[] }>();
    for (const e of entries) {
      let group = byKey.get(e.key_id);
      if (!group) byKey.set(e.key_id, (group = { hashes: [], slices: [] }));
      group.hashes.push(e.domain_hash);
      group.slices.push({ buf: e.sealed, nonceAt: 0, bodyAt: NONCE_BYTES, end: e.sealed.length });
    }
    const found: Buffer[] = [];
    for (const [keyId, group] of byKey) {
      const key = this.keyring.key(keyId);
      if (!key) {
        this.logger.error(
          `the domain dictionary of workspace ${workspaceId} holds entries sealed with key id ${keyId}, which is not configured in LEADS_ENCRYPTION_KEYS: searching without it`,
        );
        return null;
      }
      for (const i of keystreamMatches(key, group.slices, needle)) found.push(group.hashes[i]);
    }
    return found;
  }

  private filterCandidates(rows: CandidateRow[], needle: Buffer, top: NewestK<Ranked>, skipped: Map<string, number>): void {
    const byKey = new Map<string, SealedSlice[]>();
    for (const [keyId, buf] of rows) {
      const nonceAt = 10 + buf.readUInt16BE(8);
      const slice = { buf, nonceAt, bodyAt: nonceAt + NONCE_BYTES, end: buf.length };
      const group = byKey.get(keyId);
      if (group) group.push(slice);
      else byKey.set(keyId, [slice]);
    }
    for (const [keyId, slices] of byKey) {
      const key = this.keyring.key(keyId);
      if (!key) {
        skipped.set(keyId, (skipped.get(keyId) ?? 0) + slices.length);
        continue;
      }
      for (const i of keystreamMatches(key, slices, needle)) {
        const { buf, nonceAt } = slices[i];
        top.push({ t: buf.readDoubleBE(0), id: buf.toString('latin1', 10, nonceAt) });
      }
    }
  }

  private async workspaceOf(projectId: string): Promise<string | undefined> {
    const cached = this.workspaceOfProject.get(projectId);
    if (cached) return cached;
    const workspaceId = await this.projectRows.workspaceIdOf(projectId);
    if (workspaceId === undefined) return undefined;
    this.workspaceOfProject.set(projectId, workspaceId);
    return workspaceId;
  }

  /** The rows of these ids, in the order given (ids deleted meanwhile are skipped). */
  private async rowsByIds(ids: string[]): Promise<StoredRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.leads.byIds(ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  private async *csvLines(scope: LeadScope & { projectId: string }, search?: string): AsyncGenerator<string> {
    yield csvRow(['id', 'email', 'capturedAt']);
    const emit = (rows: StoredRow[]) =>
      this.openAll(rows)
        .map((l) => csvRow([l.id, l.email, l.capturedAt.toISOString()]))
        .join('');
    if (search) {
      const { newest } = await this.match(scope, search, Number.POSITIVE_INFINITY);
      for (let i = 0; i < newest.length; i += EXPORT_BATCH) {
        yield emit(await this.rowsByIds(newest.slice(i, i + EXPORT_BATCH).map((r) => r.id)));
      }
      return;
    }
    let after: StoredRow | undefined;
    for (;;) {
      const rows = await this.leads.exportPage(scope.projectId, after, EXPORT_BATCH);
      if (rows.length === 0) return;
      yield emit(rows);
      if (rows.length < EXPORT_BATCH) return;
      after = rows[rows.length - 1];
    }
  }

  private openAll(rows: StoredRow[]): OpenedLead[] {
    return rows.flatMap((row) => this.open(row) ?? []);
  }

  /** A row's email, authenticated; a row that does not open is left out and logged, never shown as garbage. */
  private open(row: StoredRow): OpenedLead | null {
    const key = this.keyring.key(row.key_id);
    if (!key) {
      this.logger.error(
        `lead ${row.id} of project ${row.project_id} is sealed with key id ${row.key_id}, which is not configured in LEADS_ENCRYPTION_KEYS: left out`,
      );
      return null;
    }
    const email = openEmail(key, { nonce: row.email_nonce, ciphertext: row.email_ciphertext }, leadAad(row.project_id, row.id));
    if (email === null) {
      this.logger.error(
        `lead ${row.id} of project ${row.project_id} failed authentication under key ${row.key_id} (ciphertext, nonce or row binding altered): left out`,
      );
      return null;
    }
    return { id: row.id, email, capturedAt: row.captured_at, projectId: row.project_id, projectName: row.project_name, projectSlug: row.project_slug };
  }
}
