import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

/** A form as the API lists it. */
export interface FormRow {
  id: string;
  name: string;
  fields: string[];
  submission_count: number;
  spam_count: number;
  last_submission_at: Date | null;
  created_at: Date;
}

/** A submission as stored: its fields still sealed (opening them is the service's). */
export interface SubmissionRow {
  id: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  index_key_id: string;
  spam: boolean;
  spam_reason: string | null;
  lead_id: string | null;
  deployment_id: string;
  created_at: Date;
}

/** Which submissions of a form a read covers: all, only spam, or only ham. */
export interface SubmissionFilter {
  formId: string;
  spam?: boolean;
}

/** Where a batch read resumes: after this row in newest-first order. */
export interface After {
  created_at: Date;
  id: string;
}

/** Only the rows that may hold a search's text: those whose tokens hold its tokens, and any indexed under another index key. */
export interface TokenFilter {
  indexKeyId: string;
  tokens: number[];
}

/** A form's columns with its counters summed over its counter rows (FormCounterShard); `f` is the form. */
const FORM_COLUMNS = `f.id, f.name, f.fields, f.created_at,
  GREATEST(COALESCE(c.submissions, 0), 0)::int AS submission_count, GREATEST(COALESCE(c.spam, 0), 0)::int AS spam_count, c.last AS last_submission_at`;
const COUNTERS = `LEFT JOIN LATERAL (SELECT sum(submissions) AS submissions, sum(spam) AS spam, max(last_submission_at) AS last
  FROM form_counters WHERE form_id = f.id) c ON true`;
const SUBMISSION_COLUMNS = 'id, key_id, nonce, ciphertext, index_key_id, spam, spam_reason, lead_id, deployment_id, created_at';
const FORM = 'frm_sqlsnapshot000000000000000';
const SUBMISSION = 'fsub_sqlsnapshot00000000000000';

/** The WHERE of a filtered read, its values from $1. */
function submissionWhere(filter: SubmissionFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [filter.formId];
  let where = 'form_id = $1';
  if (filter.spam !== undefined) {
    values.push(filter.spam);
    where += ` AND spam = $${values.length}`;
  }
  return { where, values };
}

/**
 * Every query on `forms` and `form_submissions` for reading and curating them (the
 * intake writes them in form-intake.service.ts). Every read names the project (and the
 * form its submissions hang off), so another workspace's ids find nothing.
 */
@Injectable()
export class FormsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The project's forms by name. */
  @GenerateSql({ params: (f) => [f.projectId] })
  listOfProject(projectId: string): Promise<FormRow[]> {
    return this.dataSource.query(`SELECT ${FORM_COLUMNS} FROM forms f ${COUNTERS} WHERE f.project_id = $1 ORDER BY f.name, f.id`, [projectId]);
  }

  /**
   * The form if it is the project's; locked FOR UPDATE when `lock` (inside a transaction):
   * the intake's FOR KEY SHARE then waits, so no submission is counted while this
   * transaction moves the counters.
   */
  @GenerateSql(
    { name: 'read', params: (f) => [f.manager, f.projectId, FORM, false] },
    { name: 'lock', inTransaction: true, params: (f) => [f.manager, f.projectId, FORM, true] },
  )
  async findOfProject(manager: EntityManager, projectId: string, formId: string, lock: boolean): Promise<FormRow | undefined> {
    const rows: FormRow[] = await manager.query(
      `SELECT ${FORM_COLUMNS} FROM forms f ${COUNTERS} WHERE f.id = $1 AND f.project_id = $2${lock ? ' FOR UPDATE OF f' : ''}`,
      [formId, projectId],
    );
    return rows[0];
  }

  @GenerateSql({ name: 'all', params: () => [{ formId: FORM }] }, { name: 'spam', params: () => [{ formId: FORM, spam: true }] })
  async count(filter: SubmissionFilter): Promise<number> {
    const { where, values } = submissionWhere(filter);
    const [{ n }] = await this.dataSource.query(`SELECT count(*)::int AS n FROM form_submissions WHERE ${where}`, values);
    return n as number;
  }

  /** Newest first. */
  @GenerateSql({ name: 'all', params: () => [{ formId: FORM }, 20, 0] }, { name: 'ham', params: () => [{ formId: FORM, spam: false }, 20, 40] })
  page(filter: SubmissionFilter, limit: number, offset: number): Promise<SubmissionRow[]> {
    const { where, values } = submissionWhere(filter);
    return this.dataSource.query(
      `SELECT ${SUBMISSION_COLUMNS} FROM form_submissions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, limit, offset],
    );
  }

  /**
   * The next `limit` rows newest first after `after` (from the newest when undefined), for
   * a search (with `tokens`: only rows that may match) or an export (without).
   */
  @GenerateSql(
    { name: 'first, export', params: () => [{ formId: FORM }, undefined, undefined, 500] },
    {
      name: 'next, search, ham',
      params: () => [{ formId: FORM, spam: false }, { indexKeyId: 'i1', tokens: [1, 2] }, { created_at: new Date(0), id: SUBMISSION }, 500],
    },
  )
  batch(filter: SubmissionFilter, tokens: TokenFilter | undefined, after: After | undefined, limit: number): Promise<SubmissionRow[]> {
    const { where, values } = submissionWhere(filter);
    const conditions = [where];
    if (tokens && tokens.tokens.length > 0) {
      values.push(tokens.indexKeyId, tokens.tokens);
      conditions.push(`(index_key_id <> $${values.length - 1} OR search_tokens @> $${values.length}::int[])`);
    }
    if (after) {
      values.push(after.created_at, after.id);
      conditions.push(`(created_at, id) < ($${values.length - 1}, $${values.length})`);
    }
    values.push(limit);
    return this.dataSource.query(
      `SELECT ${SUBMISSION_COLUMNS} FROM form_submissions WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
  }

  /** One submission of the form, or undefined. */
  @GenerateSql({ params: () => [FORM, SUBMISSION] })
  async findSubmission(formId: string, submissionId: string): Promise<SubmissionRow | undefined> {
    const rows: SubmissionRow[] = await this.dataSource.query(`SELECT ${SUBMISSION_COLUMNS} FROM form_submissions WHERE id = $1 AND form_id = $2`, [
      submissionId,
      formId,
    ]);
    return rows[0];
  }

  /** Marks it spam or ham; what it was before, or undefined when the form has no such submission. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FORM, SUBMISSION, true, 'user'] })
  async setSpam(manager: EntityManager, formId: string, submissionId: string, spam: boolean, reason: string | null): Promise<{ was: boolean } | undefined> {
    const [rows] = (await manager.query(
      `UPDATE form_submissions s SET spam = $3, spam_reason = $4
       FROM (SELECT id, spam AS was FROM form_submissions WHERE id = $1 AND form_id = $2 FOR UPDATE) o
       WHERE s.id = o.id RETURNING o.was`,
      [submissionId, formId, spam, reason],
    )) as [{ was: boolean }[], number];
    return rows[0];
  }

  /**
   * Erases one submission (its ciphertext with it) and the digest entries still waiting to
   * mail its fields (notification_digest_items, queried by name: forms may not import
   * notifications); whether it was spam, or undefined when there was none.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FORM, SUBMISSION] })
  async deleteOne(manager: EntityManager, formId: string, submissionId: string): Promise<{ spam: boolean } | undefined> {
    const rows = (await manager.query(
      `WITH gone AS (DELETE FROM form_submissions WHERE id = $1 AND form_id = $2 RETURNING id, spam),
       digest AS (DELETE FROM notification_digest_items WHERE kind = 'form' AND ref_id IN (SELECT id FROM gone)),
       hooks AS (DELETE FROM webhook_deliveries WHERE subject_id IN (SELECT id FROM gone))
       SELECT spam FROM gone`,
      [submissionId, formId],
    )) as { spam: boolean }[];
    return rows[0];
  }

  /** Erases every submission of the form and their waiting digest entries (as deleteOne); how many of each kind. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FORM] })
  async deleteAll(manager: EntityManager, formId: string): Promise<{ ham: number; spam: number }> {
    const [{ ham, spam }] = await manager.query(
      `WITH gone AS (DELETE FROM form_submissions WHERE form_id = $1 RETURNING id, spam),
       digest AS (DELETE FROM notification_digest_items WHERE kind = 'form' AND ref_id IN (SELECT id FROM gone)),
       hooks AS (DELETE FROM webhook_deliveries WHERE subject_id IN (SELECT id FROM gone))
       SELECT (count(*) FILTER (WHERE NOT spam))::int AS ham, (count(*) FILTER (WHERE spam))::int AS spam FROM gone`,
      [formId],
    );
    return { ham: ham as number, spam: spam as number };
  }

  /**
   * Moves the counters by what this transaction changed (never recounted: counting the rows
   * costs a scan of the form's submissions) and sets the last submission to the newest
   * non-spam one left. The caller holds the form FOR UPDATE, so no submission is being
   * counted meanwhile: the deltas go to slot 0 and the other slots' last submission is
   * cleared, since the newest may be the one just erased.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FORM, -1, 1] })
  async adjustCounts(manager: EntityManager, formId: string, submissions: number, spam: number): Promise<void> {
    await manager.query(
      `WITH cleared AS (UPDATE form_counters SET last_submission_at = NULL WHERE form_id = $1 AND slot <> 0)
       INSERT INTO form_counters AS c (form_id, slot, submissions, spam, last_submission_at)
       VALUES ($1, 0, $2, $3, (SELECT max(created_at) FROM form_submissions WHERE form_id = $1 AND NOT spam))
       ON CONFLICT (form_id, slot) DO UPDATE SET
         submissions = c.submissions + EXCLUDED.submissions,
         spam = c.spam + EXCLUDED.spam,
         last_submission_at = EXCLUDED.last_submission_at`,
      [formId, submissions, spam],
    );
  }

  /** Submissions not under the newest key or the current index key, by id after `afterId` (npm run leads:rotate). */
  @GenerateSql({ params: () => ['k1', 'i1', '', 500] })
  notRotated(keyId: string, indexKeyId: string, afterId: string, limit: number): Promise<SubmissionRotationRow[]> {
    return this.dataSource.query(
      `SELECT id, form_id, workspace_id, key_id, nonce, ciphertext, index_key_id
       FROM form_submissions WHERE (key_id <> $1 OR index_key_id <> $2) AND id > $3 ORDER BY id LIMIT $4`,
      [keyId, indexKeyId, afterId, limit],
    );
  }

  @GenerateSql({ params: () => ['k1', 'i1'] })
  async countNotRotated(keyId: string, indexKeyId: string): Promise<number> {
    const [{ n }] = await this.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE key_id <> $1 OR index_key_id <> $2', [
      keyId,
      indexKeyId,
    ]);
    return n as number;
  }

  /** Writes a submission sealed again, only if it is still as read (`was`: its key id and nonce then); false otherwise. */
  @GenerateSql({
    params: () => [
      { id: SUBMISSION, keyId: 'k2', nonce: Buffer.alloc(12), ciphertext: Buffer.alloc(16), indexKeyId: 'i2', searchTokens: [1] },
      { keyId: 'k1', nonce: Buffer.alloc(12) },
    ],
  })
  async reseal(
    next: { id: string; keyId: string; nonce: Buffer; ciphertext: Buffer; indexKeyId: string; searchTokens: number[] },
    was: { keyId: string; nonce: Buffer },
  ): Promise<boolean> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `UPDATE form_submissions SET key_id = $2, nonce = $3, ciphertext = $4, index_key_id = $5, search_tokens = $6
       WHERE id = $1 AND key_id = $7 AND nonce = $8`,
      [next.id, next.keyId, next.nonce, next.ciphertext, next.indexKeyId, next.searchTokens, was.keyId, was.nonce],
    );
    return count > 0;
  }
}

/** A submission as the key rotation reads it. */
export interface SubmissionRotationRow {
  id: string;
  form_id: string;
  workspace_id: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  index_key_id: string;
}
