import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { TAG_BYTES } from './lead-crypto';

/** Which leads a query covers: a workspace, optionally one of its projects. */
export interface LeadScope {
  workspaceId: string;
  projectId?: string;
}

/** A lead as stored, with its project's names. */
export interface StoredRow {
  id: string;
  project_id: string;
  key_id: string;
  email_nonce: Buffer;
  email_ciphertext: Buffer;
  captured_at: Date;
  project_name: string;
  project_slug: string;
}

export interface NewLead {
  id: string;
  workspaceId: string;
  projectId: string;
  keyId: string;
  emailNonce: Buffer;
  emailCiphertext: Buffer;
  indexKeyId: string;
  emailHash: Buffer;
  searchTokens: number[];
  domainHash: Buffer;
  localTokens: number[];
  capturedAt: Date;
}

export interface NewDomainEntry {
  workspaceId: string;
  domainHash: Buffer;
  indexKeyId: string;
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  searchTokens: number[];
}

/** A domain dictionary entry, its nonce and ciphertext without the tag packed in `sealed`. */
export interface DomainEntry {
  domain_hash: Buffer;
  key_id: string;
  sealed: Buffer;
}

/** key_id, then float8 capture time in ms || uint16 id length || id || nonce || ciphertext without tag. */
export type CandidateRow = [string, Buffer];

/**
 * The leads a search must decrypt and check: those of the scope whose domain is not one
 * of `otherDomainsThan` and whose local part holds the term's tokens (the domain
 * dictionary decided the others), or, without a dictionary, those whose whole email holds them.
 */
export type CandidateFilter = { scope: LeadScope; otherDomainsThan: Buffer[]; localTokens: number[] } | { scope: LeadScope; searchTokens: number[] };

export interface RotationRow {
  id: string;
  workspace_id: string;
  project_id: string;
  key_id: string;
  email_nonce: Buffer;
  email_ciphertext: Buffer;
  index_key_id: string;
  captured_at: Date;
}

export interface StaleDomainEntry {
  workspace_id: string;
  domain_hash: Buffer;
  key_id: string;
  domain_nonce: Buffer;
  domain_ciphertext: Buffer;
}

/** What sealing a lead writes: its sealed email and the blind indexes computed with it. */
type SealedColumn = 'keyId' | 'emailNonce' | 'emailCiphertext' | 'indexKeyId' | 'emailHash' | 'searchTokens' | 'domainHash' | 'localTokens';

/** The sealed columns' values in the order both INSERT and the re-seal UPDATE list them (key_id … local_tokens). */
const sealedParams = (lead: Pick<NewLead, SealedColumn>) => [
  lead.keyId,
  lead.emailNonce,
  lead.emailCiphertext,
  lead.indexKeyId,
  lead.emailHash,
  lead.searchTokens,
  lead.domainHash,
  lead.localTokens,
];

/** Candidate rows read per round trip while searching (about 5 MB). */
const SEARCH_BATCH = 50_000;

const ROW_COLUMNS = `l.id, l.project_id, l.key_id, l.email_nonce, l.email_ciphertext, l.captured_at, p.name AS project_name, p.slug AS project_slug`;

const LEAD = 'lead_sqlsnapshot00000000000000';
const HASH = Buffer.alloc(32);
const BYTES = Buffer.alloc(12);
/** A sealed lead's columns, for the SQL snapshot's examples. */
const SAMPLE_SEALED = {
  id: LEAD,
  keyId: 'k1',
  emailNonce: BYTES,
  emailCiphertext: BYTES,
  indexKeyId: 'i1',
  emailHash: HASH,
  searchTokens: [1],
  domainHash: HASH,
  localTokens: [1],
};

/** Locks the workspace's dictionary entry for the domain in `mode`; whether it exists. */
async function lockDomain(manager: EntityManager, workspaceId: string, domainHash: Buffer, mode: 'FOR KEY SHARE' | 'FOR UPDATE'): Promise<boolean> {
  const entry: unknown[] = await manager.query(`SELECT 1 FROM lead_domains WHERE workspace_id = $1 AND domain_hash = $2 ${mode}`, [workspaceId, domainHash]);
  return entry.length > 0;
}

/**
 * Every query on `leads`, `lead_counters` and `lead_domains` (the workspace's sealed
 * domain dictionary). Emails arrive sealed and leave sealed: opening them is the
 * service's. Lead rows read their project's name and slug in the same statement.
 */
@Injectable()
export class LeadsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inside the capture's transaction; false when the project already has this email (the first capture is kept). */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [
      f.manager,
      {
        ...SAMPLE_SEALED,
        workspaceId: f.workspaceId,
        projectId: f.projectId,
        capturedAt: new Date(0),
      } satisfies NewLead,
    ],
  })
  async insert(manager: EntityManager, lead: NewLead): Promise<boolean> {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO leads (id, workspace_id, project_id, key_id, email_nonce, email_ciphertext, index_key_id, email_hash, search_tokens, domain_hash, local_tokens, captured_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::int[], $10, $11::int[], $12)
           ON CONFLICT (project_id, email_hash) DO NOTHING RETURNING id`,
      [lead.id, lead.workspaceId, lead.projectId, ...sealedParams(lead), lead.capturedAt],
    );
    return inserted.length > 0;
  }

  /** The project's lead with this email digest (a repeat visitor of the email gate). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId, HASH] })
  async idByEmailHash(manager: EntityManager, projectId: string, emailHash: Buffer): Promise<string | undefined> {
    const rows: { id: string }[] = await manager.query('SELECT id FROM leads WHERE project_id = $1 AND email_hash = $2', [projectId, emailHash]);
    return rows[0]?.id;
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId, f.workspaceId] })
  async incrementCount(manager: EntityManager, projectId: string, workspaceId: string): Promise<void> {
    await manager.query(
      `INSERT INTO lead_counters (project_id, workspace_id, lead_count) VALUES ($1, $2, 1)
           ON CONFLICT (project_id) DO UPDATE SET lead_count = lead_counters.lead_count + 1`,
      [projectId, workspaceId],
    );
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId] })
  async decrementCount(manager: EntityManager, projectId: string): Promise<void> {
    await manager.query('UPDATE lead_counters SET lead_count = lead_count - 1 WHERE project_id = $1', [projectId]);
  }

  /**
   * Erases the lead (and its ciphertext) and the digest entries still waiting to mail its
   * email (notification_digest_items, queried by name: an erased lead is never mailed
   * afterwards); what its domain entry needs, or undefined when there was no such lead.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, LEAD, f.projectId] })
  async deleteOfProject(manager: EntityManager, leadId: string, projectId: string): Promise<{ workspace_id: string; domain_hash: Buffer | null } | undefined> {
    const deleted = (await manager.query(
      `WITH gone AS (DELETE FROM leads WHERE id = $1 AND project_id = $2 RETURNING id, workspace_id, domain_hash),
       digest AS (DELETE FROM notification_digest_items WHERE kind = 'lead' AND ref_id IN (SELECT id FROM gone)),
       hooks AS (DELETE FROM webhook_deliveries WHERE subject_id IN (SELECT id FROM gone))
       SELECT workspace_id, domain_hash FROM gone`,
      [leadId, projectId],
    )) as { workspace_id: string; domain_hash: Buffer | null }[];
    return deleted[0];
  }

  @GenerateSql(
    { name: 'project', params: (f) => [{ workspaceId: f.workspaceId, projectId: f.projectId }] },
    { name: 'workspace', params: (f) => [{ workspaceId: f.workspaceId }] },
  )
  async total(scope: LeadScope): Promise<number> {
    const rows: { total: string }[] = scope.projectId
      ? await this.dataSource.query('SELECT COALESCE(SUM(lead_count), 0) AS total FROM lead_counters WHERE workspace_id = $1 AND project_id = $2', [
          scope.workspaceId,
          scope.projectId,
        ])
      : await this.dataSource.query('SELECT COALESCE(SUM(lead_count), 0) AS total FROM lead_counters WHERE workspace_id = $1', [scope.workspaceId]);
    return Number(rows[0].total);
  }

  /** Newest first. */
  @GenerateSql(
    { name: 'project', params: (f) => [{ workspaceId: f.workspaceId, projectId: f.projectId }, 25, 0] },
    { name: 'workspace', params: (f) => [{ workspaceId: f.workspaceId }, 25, 0] },
  )
  page(scope: LeadScope, limit: number, offset: number): Promise<StoredRow[]> {
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

  /** In no particular order. */
  @GenerateSql({ params: () => [[LEAD]] })
  byIds(ids: string[]): Promise<StoredRow[]> {
    return this.dataSource.query(`SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id WHERE l.id = ANY($1::text[])`, [ids]);
  }

  /** The export's keyset pages, newest first: the first page, or the one after `after`. */
  @GenerateSql(
    { name: 'first', params: (f) => [f.projectId, undefined, 1000] },
    { name: 'next', params: (f) => [f.projectId, { captured_at: new Date(0), id: LEAD }, 1000] },
  )
  exportPage(projectId: string, after: Pick<StoredRow, 'captured_at' | 'id'> | undefined, limit: number): Promise<StoredRow[]> {
    return after
      ? this.dataSource.query(
          `SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id
             WHERE l.project_id = $1 AND (l.captured_at, l.id) < ($2::timestamptz, $3::text) ORDER BY l.captured_at DESC, l.id DESC LIMIT $4`,
          [projectId, after.captured_at, after.id, limit],
        )
      : this.dataSource.query(
          `SELECT ${ROW_COLUMNS} FROM leads l JOIN projects p ON p.id = l.project_id
             WHERE l.project_id = $1 ORDER BY l.captured_at DESC, l.id DESC LIMIT $2`,
          [projectId, limit],
        );
  }

  // ------------------------------------------------------------ search (one REPEATABLE READ snapshot)

  /** Whether some lead of the workspace predates the domain dictionary (until `npm run leads:rotate` fills it in). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  async hasUnsplit(manager: EntityManager, workspaceId: string): Promise<boolean> {
    const [{ unsplit }] = await manager.query('SELECT EXISTS (SELECT 1 FROM leads WHERE workspace_id = $1 AND domain_hash IS NULL) AS unsplit', [workspaceId]);
    return unsplit as boolean;
  }

  /** The workspace's dictionary entries under this index key holding every token (all of them without tokens). */
  @GenerateSql(
    { name: 'tokens', inTransaction: true, params: (f) => [f.manager, f.workspaceId, 'i1', [1, 2]] },
    { name: 'no tokens', inTransaction: true, params: (f) => [f.manager, f.workspaceId, 'i1', []] },
  )
  domainEntries(manager: EntityManager, workspaceId: string, indexKeyId: string, tokens: number[]): Promise<DomainEntry[]> {
    return manager.query(
      `SELECT domain_hash, key_id, domain_nonce || substring(domain_ciphertext FROM 1 FOR GREATEST(octet_length(domain_ciphertext) - ${TAG_BYTES}, 0)) AS sealed
       FROM lead_domains WHERE workspace_id = $1 AND index_key_id = $2${tokens.length > 0 ? ' AND search_tokens @> $3::int[]' : ''}`,
      tokens.length > 0 ? [workspaceId, indexKeyId, tokens] : [workspaceId, indexKeyId],
    );
  }

  /** How many leads of the scope have one of these domains. */
  @GenerateSql(
    { name: 'project', inTransaction: true, params: (f) => [f.manager, { workspaceId: f.workspaceId, projectId: f.projectId }, [HASH]] },
    { name: 'workspace', inTransaction: true, params: (f) => [f.manager, { workspaceId: f.workspaceId }, [HASH]] },
  )
  async countWithDomains(manager: EntityManager, scope: LeadScope, domains: Buffer[]): Promise<number> {
    const [{ n }] = await manager.query(`SELECT count(*)::int AS n FROM leads WHERE ${scopeColumn(scope)} = $1 AND domain_hash = ANY($2::bytea[])`, [
      scopeId(scope),
      domains,
    ]);
    return n as number;
  }

  /** Per domain its `keep` newest leads of the scope (all of them when `keep` is infinite), by index. */
  @GenerateSql(
    { name: 'project', inTransaction: true, params: (f) => [f.manager, { workspaceId: f.workspaceId, projectId: f.projectId }, [HASH], 25] },
    { name: 'workspace', inTransaction: true, params: (f) => [f.manager, { workspaceId: f.workspaceId }, [HASH], 25] },
  )
  newestWithDomains(manager: EntityManager, scope: LeadScope, domains: Buffer[], keep: number): Promise<{ t: number; id: string }[]> {
    return manager.query(
      `SELECT l.t, l.id FROM unnest($2::bytea[]) AS d(hash), LATERAL (
               SELECT floor(extract(epoch FROM captured_at) * 1000)::float8 AS t, id FROM leads
               WHERE ${scopeColumn(scope)} = $1 AND domain_hash = d.hash ORDER BY captured_at DESC, id DESC LIMIT $3) AS l`,
      [scopeId(scope), domains, Number.isFinite(keep) ? keep : null],
    );
  }

  /**
   * Reads every candidate through a cursor, `SEARCH_BATCH` rows per round trip, handing
   * each batch to `each`. Inside the caller's transaction (a cursor lives in one).
   *
   * Per candidate one packed field (capture ms, id, nonce, ciphertext without its tag):
   * moving candidates out of PostgreSQL is most of the time of a search they are many for.
   * For the same reason FETCH goes to the pg client in array row mode, past TypeORM; it
   * is logged through the data source's logger as TypeORM logs its own queries, so query
   * logging and the SQL snapshot see it.
   */
  @GenerateSql(
    {
      name: 'dictionary, project',
      inTransaction: true,
      params: (f) => [
        f.manager,
        { scope: { workspaceId: f.workspaceId, projectId: f.projectId }, otherDomainsThan: [HASH], localTokens: [1] },
        () => undefined,
      ],
    },
    {
      name: 'dictionary, no tokens',
      inTransaction: true,
      params: (f) => [f.manager, { scope: { workspaceId: f.workspaceId }, otherDomainsThan: [], localTokens: [] }, () => undefined],
    },
    {
      name: 'whole email, project',
      inTransaction: true,
      params: (f) => [f.manager, { scope: { workspaceId: f.workspaceId, projectId: f.projectId }, searchTokens: [1] }, () => undefined],
    },
    {
      name: 'whole email, no tokens',
      inTransaction: true,
      params: (f) => [f.manager, { scope: { workspaceId: f.workspaceId }, searchTokens: [] }, () => undefined],
    },
  )
  async scanCandidates(manager: EntityManager, filter: CandidateFilter, each: (rows: CandidateRow[]) => void): Promise<void> {
    const { scope } = filter;
    const values: unknown[] = [scopeId(scope)];
    const where = [`${scopeColumn(scope)} = $1`];
    if ('otherDomainsThan' in filter) {
      // The others match only if their local part holds the term.
      values.push(filter.otherDomainsThan);
      where.push(`NOT (domain_hash = ANY($2::bytea[]))`);
      if (filter.localTokens.length > 0) {
        values.push(filter.localTokens);
        where.push(`local_tokens @> $${values.length}::int[]`);
      }
    } else {
      if (scope.projectId) {
        values.push(scope.workspaceId);
        where.push(`workspace_id = $${values.length}`);
      }
      if (filter.searchTokens.length > 0) {
        values.push(filter.searchTokens);
        where.push(`search_tokens @> $${values.length}::int[]`);
      }
    }
    // Every row will be read: plan for all of them (a cursor is otherwise planned for its first 10 %).
    await manager.query('SET LOCAL cursor_tuple_fraction = 1');
    await manager.query(
      `DECLARE lead_candidates NO SCROLL CURSOR FOR
         SELECT key_id, float8send(floor(extract(epoch FROM captured_at) * 1000)) || int2send(octet_length(id)::int2) || convert_to(id, 'UTF8')
                || email_nonce || substring(email_ciphertext FROM 1 FOR GREATEST(octet_length(email_ciphertext) - ${TAG_BYTES}, 0))
         FROM leads WHERE ${where.join(' AND ')}`,
      values,
    );
    const runner = manager.queryRunner!;
    const client = (await runner.connect()) as PoolClient;
    const fetch = `FETCH FORWARD ${SEARCH_BATCH} FROM lead_candidates`;
    for (;;) {
      manager.connection.logger.logQuery(fetch, undefined, runner);
      const { rows } = await client.query<CandidateRow>({ text: fetch, rowMode: 'array' });
      each(rows);
      if (rows.length < SEARCH_BATCH) break;
    }
  }

  // ------------------------------------------------------------ the domain dictionary

  /**
   * Whether the workspace's dictionary holds the domain; if so its entry is locked FOR
   * KEY SHARE until the transaction ends: captures share it with each other, but an
   * erasure (lockDomainForRemoval) waits until the lead being written is visible.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId, HASH] })
  holdDomain(manager: EntityManager, workspaceId: string, domainHash: Buffer): Promise<boolean> {
    return lockDomain(manager, workspaceId, domainHash, 'FOR KEY SHARE');
  }

  /** False when another transaction inserted it meanwhile (or is erasing it). */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [
      f.manager,
      {
        workspaceId: f.workspaceId,
        domainHash: HASH,
        indexKeyId: 'i1',
        keyId: 'k1',
        nonce: BYTES,
        ciphertext: BYTES,
        searchTokens: [1],
      } satisfies NewDomainEntry,
    ],
  })
  async insertDomain(manager: EntityManager, entry: NewDomainEntry): Promise<boolean> {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO lead_domains (workspace_id, domain_hash, index_key_id, key_id, domain_nonce, domain_ciphertext, search_tokens)
       VALUES ($1, $2, $3, $4, $5, $6, $7::int[]) ON CONFLICT (workspace_id, domain_hash) DO NOTHING RETURNING 1`,
      [entry.workspaceId, entry.domainHash, entry.indexKeyId, entry.keyId, entry.nonce, entry.ciphertext, entry.searchTokens],
    );
    return inserted.length > 0;
  }

  /**
   * Locks the entry FOR UPDATE, which waits for captures of this domain in flight (they
   * hold it FOR KEY SHARE), so that a check after it sees their leads. Whether it exists.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId, HASH] })
  lockDomainForRemoval(manager: EntityManager, workspaceId: string, domainHash: Buffer): Promise<boolean> {
    return lockDomain(manager, workspaceId, domainHash, 'FOR UPDATE');
  }

  /** Drops the entry unless a lead of the workspace still has this domain. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId, HASH] })
  async deleteDomainIfUnused(manager: EntityManager, workspaceId: string, domainHash: Buffer): Promise<void> {
    await manager.query(
      `DELETE FROM lead_domains WHERE workspace_id = $1 AND domain_hash = $2
     AND NOT EXISTS (SELECT 1 FROM leads WHERE workspace_id = $1 AND domain_hash = $2)`,
      [workspaceId, domainHash],
    );
  }

  // ------------------------------------------------------------ rotation (leads-rotation.ts)

  /** The next leads by id not under these keys, or not yet in the domain dictionary. */
  @GenerateSql({ params: () => ['k1', 'i1', '', 500] })
  notRotated(keyId: string, indexKeyId: string, afterId: string, limit: number): Promise<RotationRow[]> {
    return this.dataSource.query(
      `SELECT id, workspace_id, project_id, key_id, email_nonce, email_ciphertext, index_key_id, captured_at
       FROM leads WHERE (key_id <> $1 OR index_key_id <> $2 OR domain_hash IS NULL) AND id > $3 ORDER BY id LIMIT $4`,
      [keyId, indexKeyId, afterId, limit],
    );
  }

  @GenerateSql({ params: () => ['k1', 'i1'] })
  async countNotRotated(keyId: string, indexKeyId: string): Promise<number> {
    const [{ n }] = await this.dataSource.query('SELECT count(*)::int AS n FROM leads WHERE key_id <> $1 OR index_key_id <> $2 OR domain_hash IS NULL', [
      keyId,
      indexKeyId,
    ]);
    return n as number;
  }

  /** The other leads of the project with this dedupe digest, locked. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId, HASH, LEAD] })
  lockDuplicates(manager: EntityManager, projectId: string, emailHash: Buffer, exceptId: string): Promise<{ id: string; captured_at: Date }[]> {
    return manager.query('SELECT id, captured_at FROM leads WHERE project_id = $1 AND email_hash = $2 AND id <> $3 FOR UPDATE', [
      projectId,
      emailHash,
      exceptId,
    ]);
  }

  /** False when it was gone already. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, LEAD] })
  async delete(manager: EntityManager, id: string): Promise<boolean> {
    const [deleted] = (await manager.query('DELETE FROM leads WHERE id = $1 RETURNING id', [id])) as [unknown[], number];
    return deleted.length > 0;
  }

  /**
   * Writes the lead sealed and indexed again, only if it is still as it was read
   * (`was`: its key id and nonce), so that a newer write is never undone. Whether it was written.
   */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [
      f.manager,
      {
        ...SAMPLE_SEALED,
      },
      { keyId: 'k0', nonce: BYTES },
    ],
  })
  async reseal(manager: EntityManager, lead: Pick<NewLead, 'id' | SealedColumn>, was: { keyId: string; nonce: Buffer }): Promise<boolean> {
    const [, updated] = (await manager.query(
      `UPDATE leads SET key_id = $1, email_nonce = $2, email_ciphertext = $3, index_key_id = $4, email_hash = $5, search_tokens = $6::int[], domain_hash = $7, local_tokens = $8::int[]
     WHERE id = $9 AND key_id = $10 AND email_nonce = $11`,
      [...sealedParams(lead), lead.id, was.keyId, was.nonce],
    )) as [unknown, number];
    return updated === 1;
  }

  /** Dictionary entries of the current index key not sealed under the newest key. */
  @GenerateSql({ params: () => ['k1', 'i1'] })
  staleDomains(keyId: string, indexKeyId: string): Promise<StaleDomainEntry[]> {
    return this.dataSource.query(
      'SELECT workspace_id, domain_hash, key_id, domain_nonce, domain_ciphertext FROM lead_domains WHERE key_id <> $1 AND index_key_id = $2',
      [keyId, indexKeyId],
    );
  }

  /** Seals the entry again, only if it is still as it was read; how many rows were written (0 or 1). */
  @GenerateSql({
    params: (f) => [{ workspace_id: f.workspaceId, domain_hash: HASH, key_id: 'k0', domain_nonce: BYTES, domain_ciphertext: BYTES }, 'k1', BYTES, BYTES],
  })
  async resealDomain(entry: StaleDomainEntry, keyId: string, nonce: Buffer, ciphertext: Buffer): Promise<number> {
    const [, updated] = (await this.dataSource.query(
      'UPDATE lead_domains SET key_id = $1, domain_nonce = $2, domain_ciphertext = $3 WHERE workspace_id = $4 AND domain_hash = $5 AND key_id = $6 AND domain_nonce = $7',
      [keyId, nonce, ciphertext, entry.workspace_id, entry.domain_hash, entry.key_id, entry.domain_nonce],
    )) as [unknown, number];
    return updated;
  }

  /** Entries made under an older index key (once every lead is reindexed); how many. */
  @GenerateSql({ params: () => ['i-unknown'] })
  async deleteDomainsOfOtherIndexKeys(indexKeyId: string): Promise<number> {
    const [, deleted] = (await this.dataSource.query('DELETE FROM lead_domains WHERE index_key_id <> $1', [indexKeyId])) as [unknown, number];
    return deleted;
  }

  /** Entries no lead refers to any more (e.g. left by a deleted project); how many. */
  @GenerateSql()
  async deleteUnusedDomains(): Promise<number> {
    // Same lock as an erasure (lockDomainForRemoval), so a capture in flight keeps its entry.
    const [, unused] = (await this.dataSource.query(
      `DELETE FROM lead_domains d WHERE (d.workspace_id, d.domain_hash) IN (
       SELECT workspace_id, domain_hash FROM lead_domains e
       WHERE NOT EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = e.workspace_id AND l.domain_hash = e.domain_hash)
       FOR UPDATE SKIP LOCKED)
     AND NOT EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = d.workspace_id AND l.domain_hash = d.domain_hash)`,
    )) as [unknown, number];
    return unused;
  }
}

function scopeColumn(scope: LeadScope): string {
  return scope.projectId ? 'project_id' : 'workspace_id';
}

function scopeId(scope: LeadScope): string {
  return scope.projectId ?? scope.workspaceId;
}
