import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { PoolClient } from 'pg';
import { DataSource, QueryFailedError, QueryRunner } from 'typeorm';
import type { Principal } from '../auth/principal';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { ProjectsService, workspaceOf } from '../projects/projects.service';
import { csvRow } from './csv';
import { LeadsKeyring } from './keyring';
import { addDomain, removeDomainIfUnused } from './lead-domains';
import { keystreamMatches, leadAad, NONCE_BYTES, normalizeLeadText, openEmail, SealedSlice, sealEmail, splitEmail, TAG_BYTES } from './lead-crypto';
import { NewestK, Ranked } from './newest';

/** Which leads a query covers: a workspace, optionally one of its projects. */
export interface LeadScope {
  workspaceId: string;
  projectId?: string;
}

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

export type CaptureResult = 'captured' | 'known' | 'gone';

interface StoredRow {
  id: string;
  project_id: string;
  key_id: string;
  email_nonce: Buffer;
  email_ciphertext: Buffer;
  captured_at: Date;
  project_name: string;
  project_slug: string;
}

/** Candidate rows read per round trip while searching (about 5 MB). */
const SEARCH_BATCH = 50_000;

/** key_id, then float8 capture time in ms || uint16 id length || id || nonce || ciphertext without tag. */
type CandidateRow = [string, Buffer];
/** Rows per query while exporting. */
const EXPORT_BATCH = 1000;

const ROW_COLUMNS = `l.id, l.project_id, l.key_id, l.email_nonce, l.email_ciphertext, l.captured_at, p.name AS project_name, p.slug AS project_slug`;

function isForeignKeyViolation(err: unknown): boolean {
  return err instanceof QueryFailedError && (err as QueryFailedError & { driverError?: { code?: string } }).driverError?.code === '23503';
}

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
    private readonly keyring: LeadsKeyring,
    private readonly projects: ProjectsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores a normalised email as a lead of the project, once per project: a
   * second capture of the same email keeps the first (and its capture time).
   * 'gone' when the project no longer exists.
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
      return await this.dataSource.transaction(async (m) => {
        const domainHash = await addDomain(m, this.keyring, workspaceId, domain);
        const inserted: unknown[] = await m.query(
          `INSERT INTO leads (id, workspace_id, project_id, key_id, email_nonce, email_ciphertext, index_key_id, email_hash, search_tokens, domain_hash, local_tokens, captured_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::int[], $10, $11::int[], $12)
           ON CONFLICT (project_id, email_hash) DO NOTHING RETURNING id`,
          [id, workspaceId, projectId, key.id, sealed.nonce, sealed.ciphertext, index.keyId, index.emailHash(projectId, email), index.tokens(email), domainHash, index.tokens(local), this.clock.now()],
        );
        if (inserted.length === 0) return 'known' as const;
        await m.query(
          `INSERT INTO lead_counters (project_id, workspace_id, lead_count) VALUES ($1, $2, 1)
           ON CONFLICT (project_id) DO UPDATE SET lead_count = lead_counters.lead_count + 1`,
          [projectId, workspaceId],
        );
        return 'captured' as const;
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
      const [deleted] = (await m.query('DELETE FROM leads WHERE id = $1 AND project_id = $2 RETURNING workspace_id, domain_hash', [leadId, project.id])) as [
        { workspace_id: string; domain_hash: Buffer | null }[],
        number,
      ];
      if (deleted.length === 0) throw notFound('Lead', leadId);
      await m.query('UPDATE lead_counters SET lead_count = lead_count - 1 WHERE project_id = $1', [project.id]);
      await removeDomainIfUnused(m, deleted[0].workspace_id, deleted[0].domain_hash);
    });
  }

  async list(scope: LeadScope, query: LeadsPageQuery): Promise<Paginated<OpenedLead>> {
    const { page, limit } = query;
    const offset = (page - 1) * limit;
    if (!query.search) {
      const [total, rows] = await Promise.all([this.total(scope), this.pageRows(scope, limit, offset)]);
      return paginated(this.openAll(rows), total, page, limit);
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
    const runner = this.dataSource.createQueryRunner();
    try {
      const client = (await runner.connect()) as PoolClient;
      // One snapshot for the dictionary, the counts and the candidates, so that they add up.
      await runner.startTransaction('REPEATABLE READ');
      const values: unknown[] = [scope.projectId ?? scope.workspaceId];
      const where = [scope.projectId ? 'project_id = $1' : 'workspace_id = $1'];
      const domains = term.includes('@') ? null : await this.domainsContaining(runner, scope.workspaceId, term, needle);
      if (domains) {
        // Every lead with one of these domains matches: counted and ranked by index, never decrypted.
        if (domains.length > 0) {
          const [{ n }] = await runner.query(`SELECT count(*)::int AS n FROM leads WHERE ${where[0]} AND domain_hash = ANY($2::bytea[])`, [values[0], domains]);
          decided = n;
          const newest: { t: number; id: string }[] = await runner.query(
            `SELECT l.t, l.id FROM unnest($2::bytea[]) AS d(hash), LATERAL (
               SELECT floor(extract(epoch FROM captured_at) * 1000)::float8 AS t, id FROM leads
               WHERE ${where[0]} AND domain_hash = d.hash ORDER BY captured_at DESC, id DESC LIMIT $3) AS l`,
            [values[0], domains, Number.isFinite(keep) ? keep : null],
          );
          for (const r of newest) top.push({ t: r.t, id: r.id });
          pushed = newest.length;
        }
        // The others match only if their local part holds the term.
        values.push(domains);
        where.push(`NOT (domain_hash = ANY($2::bytea[]))`);
        const tokens = index.tokens(term);
        if (tokens.length > 0) {
          values.push(tokens);
          where.push(`local_tokens @> $${values.length}::int[]`);
        }
      } else {
        if (scope.projectId) {
          values.push(scope.workspaceId);
          where.push(`workspace_id = $${values.length}`);
        }
        const tokens = index.tokens(term);
        if (tokens.length > 0) {
          values.push(tokens);
          where.push(`search_tokens @> $${values.length}::int[]`);
        }
      }
      // Every row will be read: plan for all of them (a cursor is otherwise planned for its first 10 %).
      await runner.query('SET LOCAL cursor_tuple_fraction = 1');
      // Per candidate one packed field (capture ms, id, nonce, ciphertext without its tag): moving
      // candidates out of PostgreSQL is most of the time of a search they are many for.
      await runner.query(
        `DECLARE lead_candidates NO SCROLL CURSOR FOR
         SELECT key_id, float8send(floor(extract(epoch FROM captured_at) * 1000)) || int2send(octet_length(id)::int2) || convert_to(id, 'UTF8')
                || email_nonce || substring(email_ciphertext FROM 1 FOR GREATEST(octet_length(email_ciphertext) - ${TAG_BYTES}, 0))
         FROM leads WHERE ${where.join(' AND ')}`,
        values,
      );
      for (;;) {
        const { rows } = await client.query<CandidateRow>({ text: `FETCH FORWARD ${SEARCH_BATCH} FROM lead_candidates`, rowMode: 'array' });
        this.filterCandidates(rows, needle, top, skipped);
        if (rows.length < SEARCH_BATCH) break;
      }
      await runner.commitTransaction();
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
    for (const [keyId, n] of skipped) {
      this.logger.error(`search left out ${n} lead(s) of workspace ${scope.workspaceId} sealed with key id ${keyId}, which is not configured in LEADS_ENCRYPTION_KEYS`);
    }
    return { total: decided + top.count - pushed, newest: top.sorted() };
  }

  /**
   * The digests of the workspace's domains that contain `term` (which holds no '@'),
   * from its sealed domain dictionary; null when the dictionary cannot decide: some
   * leads predate it (until `npm run leads:rotate` fills them in), or one of its
   * entries is sealed with a key that is not configured.
   */
  private async domainsContaining(runner: QueryRunner, workspaceId: string, term: string, needle: Buffer): Promise<Buffer[] | null> {
    const [{ unsplit }] = await runner.query('SELECT EXISTS (SELECT 1 FROM leads WHERE workspace_id = $1 AND domain_hash IS NULL) AS unsplit', [workspaceId]);
    if (unsplit) return null;
    const index = this.keyring.index(workspaceId);
    const tokens = index.tokens(term);
    const entries: { domain_hash: Buffer; key_id: string; sealed: Buffer }[] = await runner.query(
      `SELECT domain_hash, key_id, domain_nonce || substring(domain_ciphertext FROM 1 FOR GREATEST(octet_length(domain_ciphertext) - ${TAG_BYTES}, 0)) AS sealed
       FROM lead_domains WHERE workspace_id = $1 AND index_key_id = $2${tokens.length > 0 ? ' AND search_tokens @> $3::int[]' : ''}`,
      tokens.length > 0 ? [workspaceId, index.keyId, tokens] : [workspaceId, index.keyId],
    );
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
        this.logger.error(`the domain dictionary of workspace ${workspaceId} holds entries sealed with key id ${keyId}, which is not configured in LEADS_ENCRYPTION_KEYS: searching without it`);
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
    const rows: { workspace_id: string }[] = await this.dataSource.query('SELECT workspace_id FROM projects WHERE id = $1', [projectId]);
    if (rows.length === 0) return undefined;
    this.workspaceOfProject.set(projectId, rows[0].workspace_id);
    return rows[0].workspace_id;
  }

  private async total(scope: LeadScope): Promise<number> {
    const rows: { total: string }[] = scope.projectId
      ? await this.dataSource.query('SELECT COALESCE(SUM(lead_count), 0) AS total FROM lead_counters WHERE workspace_id = $1 AND project_id = $2', [scope.workspaceId, scope.projectId])
      : await this.dataSource.query('SELECT COALESCE(SUM(lead_count), 0) AS total FROM lead_counters WHERE workspace_id = $1', [scope.workspaceId]);
    return Number(rows[0].total);
  }

  private pageRows(scope: LeadScope, limit: number, offset: number): Promise<StoredRow[]> {
    return scope.projectId
      ? this.dataSource.query(
          `SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id
           WHERE l.project_id = $1 AND l.workspace_id = $2 ORDER BY l.captured_at DESC, l.id DESC LIMIT $3 OFFSET $4`,
          [scope.projectId, scope.workspaceId, limit, offset],
        )
      : this.dataSource.query(
          `SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id
           WHERE l.workspace_id = $1 ORDER BY l.captured_at DESC, l.id DESC LIMIT $2 OFFSET $3`,
          [scope.workspaceId, limit, offset],
        );
  }

  /** The rows of these ids, in the order given (ids deleted meanwhile are skipped). */
  private async rowsByIds(ids: string[]): Promise<StoredRow[]> {
    if (ids.length === 0) return [];
    const rows: StoredRow[] = await this.dataSource.query(`SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id WHERE l.id = ANY($1::text[])`, [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  private async *csvLines(scope: LeadScope & { projectId: string }, search?: string): AsyncGenerator<string> {
    yield csvRow(['id', 'email', 'capturedAt']);
    const emit = (rows: StoredRow[]) => this.openAll(rows).map((l) => csvRow([l.id, l.email, l.capturedAt.toISOString()])).join('');
    if (search) {
      const { newest } = await this.match(scope, search, Number.POSITIVE_INFINITY);
      for (let i = 0; i < newest.length; i += EXPORT_BATCH) {
        yield emit(await this.rowsByIds(newest.slice(i, i + EXPORT_BATCH).map((r) => r.id)));
      }
      return;
    }
    let after: StoredRow | undefined;
    for (;;) {
      const rows: StoredRow[] = after
        ? await this.dataSource.query(
            `SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id
             WHERE l.project_id = $1 AND (l.captured_at, l.id) < ($2::timestamptz, $3::text) ORDER BY l.captured_at DESC, l.id DESC LIMIT $4`,
            [scope.projectId, after.captured_at, after.id, EXPORT_BATCH],
          )
        : await this.dataSource.query(
            `SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id
             WHERE l.project_id = $1 ORDER BY l.captured_at DESC, l.id DESC LIMIT $2`,
            [scope.projectId, EXPORT_BATCH],
          );
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
      this.logger.error(`lead ${row.id} of project ${row.project_id} is sealed with key id ${row.key_id}, which is not configured in LEADS_ENCRYPTION_KEYS: left out`);
      return null;
    }
    const email = openEmail(key, { nonce: row.email_nonce, ciphertext: row.email_ciphertext }, leadAad(row.project_id, row.id));
    if (email === null) {
      this.logger.error(`lead ${row.id} of project ${row.project_id} failed authentication under key ${row.key_id} (ciphertext, nonce or row binding altered): left out`);
      return null;
    }
    return { id: row.id, email, capturedAt: row.captured_at, projectId: row.project_id, projectName: row.project_name, projectSlug: row.project_slug };
  }
}
