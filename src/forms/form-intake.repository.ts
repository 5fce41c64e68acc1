import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { newId } from '../common/ids';
import { GenerateSql } from '../database/generate-sql';
import { preparedQuery } from '../database/prepared-query';
import type { DeclaredForm } from '../shared/forms/declared-form';
import { FORM_COUNTER_SLOTS } from './form-counter.entity';

export interface NewSubmission {
  id: string;
  formId: string;
  projectId: string;
  workspaceId: string;
  deploymentId: string;
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  indexKeyId: string;
  searchTokens: number[];
  spam: boolean;
  spamReason: string | null;
  leadId: string | null;
  createdAt: Date;
}

/**
 * A visitor's counter in `gate_rate_limits` as rate-limiter-flexible keeps it (the intake's
 * other path consumes the same row through the library): `max` submissions per window are
 * kept, as many again kept as spam, past that refused.
 */
export interface VisitorRate {
  /** The library's key for this visitor (RateLimiterPostgres.getKey). */
  key: string;
  /** The library's key for the visitor's address, whatever its user agent. */
  addressKey: string;
  nowMs: number;
  windowMs: number;
  max: number;
  addressMax: number;
}

/** The counter after this post, and what became of the submission. */
export interface CountedStore {
  /** Points used in the window, this post included: past 2 × max nothing was stored. */
  points: number;
  /** When the window ends (epoch ms). */
  expireMs: number;
  /** The same for the visitor's address. */
  addressPoints: number;
  addressExpireMs: number;
  /** Null when nothing was stored: refused by the rate, or the form is gone. */
  spam: boolean | null;
}

/** The SQL snapshots' submission (tests/database/sql-snapshots): what both store statements are generated with. */
function snapshotSubmission(f: { projectId: string; workspaceId: string; deploymentId: string }): Omit<NewSubmission, 'spam'> {
  return {
    id: 'fsub_sqlsnapshot',
    formId: 'frm_sqlsnapshot',
    projectId: f.projectId,
    workspaceId: f.workspaceId,
    deploymentId: f.deploymentId,
    keyId: 'k1',
    nonce: Buffer.alloc(12),
    ciphertext: Buffer.alloc(16),
    indexKeyId: 'i1',
    searchTokens: [1],
    spamReason: null,
    leadId: null,
    createdAt: new Date(0),
  };
}

/**
 * The counters' upsert of both store statements, from their `stored` CTE (`RETURNING id,
 * spam`): this connection's slot of the form's counter rows (FormCounterShard). `form` and
 * `createdAt` name the statement's parameters.
 */
function countStored(form: string, createdAt: string): string {
  return `
         INSERT INTO form_counters AS c (form_id, slot, submissions, spam, last_submission_at)
         SELECT ${form}, pg_backend_pid() % ${FORM_COUNTER_SLOTS}, CASE WHEN s.spam THEN 0 ELSE 1 END, CASE WHEN s.spam THEN 1 ELSE 0 END, CASE WHEN s.spam THEN NULL ELSE ${createdAt}::timestamptz END
         FROM stored s
         ON CONFLICT (form_id, slot) DO UPDATE SET
           submissions = c.submissions + EXCLUDED.submissions,
           spam = c.spam + EXCLUDED.spam,
           last_submission_at = GREATEST(c.last_submission_at, EXCLUDED.last_submission_at)
       `;
}

/** The queries of the form intake and of registering a deployment's forms (issue 30). */
@Injectable()
export class FormIntakeRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A project's forms from a deployment's declarations: new names created, known ones get
   * the newest deployment's fields. In the deploy's transaction (the deployment.created
   * listener), so forms exist exactly when the deployment does.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.deploymentId] })
  async registerDeclared(m: EntityManager, deploymentId: string): Promise<number> {
    const rows: { project_id: string; workspace_id: string; forms: DeclaredForm[] }[] = await m.query(
      'SELECT project_id, workspace_id, forms FROM deployments WHERE id = $1',
      [deploymentId],
    );
    const row = rows[0];
    if (!row || row.forms.length === 0) return 0;
    await m.query(
      `INSERT INTO forms (id, project_id, workspace_id, name, fields)
       SELECT id, $1, $2, name, ARRAY(SELECT jsonb_array_elements_text(fields))
       FROM unnest($3::text[], $4::text[], $5::jsonb[]) AS f(id, name, fields)
       ON CONFLICT (project_id, name) DO UPDATE SET fields = EXCLUDED.fields`,
      [row.project_id, row.workspace_id, row.forms.map(() => newId('frm')), row.forms.map((f) => f.name), row.forms.map((f) => JSON.stringify(f.fields))],
    );
    return row.forms.length;
  }

  /**
   * The project's form of this name, created when no deployment.created registered it yet
   * (its counters untouched): the intake needs its id before sealing (it is in the
   * ciphertext's additional data). Undefined when the project is gone.
   */
  @GenerateSql({ params: (f) => [f.projectId, { name: 'sql-snapshot', fields: ['email'] }] })
  async formRef(projectId: string, form: Pick<DeclaredForm, 'name' | 'fields'>): Promise<{ id: string; workspaceId: string } | undefined> {
    const rows: { id: string; workspace_id: string }[] = await this.dataSource.query(
      `INSERT INTO forms (id, project_id, workspace_id, name, fields)
       SELECT $1, p.id, p.workspace_id, $3, $4::text[] FROM projects p WHERE p.id = $2
       ON CONFLICT (project_id, name) DO UPDATE SET name = EXCLUDED.name
       RETURNING id, workspace_id`,
      [newId('frm'), projectId, form.name, form.fields],
    );
    return rows[0] && { id: rows[0].id, workspaceId: rows[0].workspace_id };
  }

  /**
   * One submission and its form's counters, in one statement; false when the form is gone
   * (its project deleted since `formRef`). FOR KEY SHARE on the form waits out an erasure or
   * spam change holding it FOR UPDATE (their counter deltas and ours never interleave) and
   * finds no row when a deletion won. The counters go to this connection's slot of the
   * form's counter rows (FormCounterShard): only a submission on another connection with
   * the same slot waits for that row, and only until this transaction commits. Prepared:
   * planning it cost half as much as running it, on every post.
   *
   * The lead is linked only while it is a lead of this project: one erased (or of another
   * project) leaves `lead_id` null. FOR KEY SHARE holds it until commit, so an erasure
   * running meanwhile waits and then nulls this link too (FK_form_submissions_lead).
   */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [f.manager, { ...snapshotSubmission(f), spam: false }],
  })
  async storeSubmission(m: EntityManager, s: NewSubmission): Promise<boolean> {
    const rows = await preparedQuery(
      this.dataSource,
      'form_store_submission',
      `WITH stored AS (
         INSERT INTO form_submissions (id, form_id, project_id, workspace_id, deployment_id, key_id, nonce, ciphertext, index_key_id, search_tokens, spam, spam_reason, lead_id, created_at)
         SELECT $1, f.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
           (SELECT l.id FROM leads l WHERE l.id = $13 AND l.project_id = $3 FOR KEY SHARE), $14
         FROM (SELECT id FROM forms WHERE id = $2 FOR KEY SHARE) f
         RETURNING id, spam
       ), counted AS (${countStored('$2', '$14')})
       SELECT id FROM stored`,
      [
        s.id,
        s.formId,
        s.projectId,
        s.workspaceId,
        s.deploymentId,
        s.keyId,
        s.nonce,
        s.ciphertext,
        s.indexKeyId,
        s.searchTokens,
        s.spam,
        s.spamReason,
        s.leadId,
        s.createdAt,
      ],
      m,
    );
    return rows.length === 1;
  }

  /**
   * The common post in one statement, when no `form.submitted` listener would write:
   * `heard` is the EventBus's SQL condition for that (on `$4`, the workspace), checked
   * unless `s.spamReason` is set (spam is heard by no one). Heard: nothing is written and
   * the intake takes its other path. Otherwise the rate counters of the visitor and of its
   * address (as the library's upsert counts them: a window past its end starts again), then,
   * unless either is past twice its allowance, the submission (spam for `s.spamReason` or,
   * past an allowance, `rate_limited`) and its counters as storeSubmission writes them. One round trip and
   * one commit where the listeners' reads, the library's upsert and the store took four
   * (docs/forms.md, "Speed"). The listeners' condition is read in the statement's snapshot.
   */
  @GenerateSql({
    params: (f) => [
      snapshotSubmission(f),
      { key: 'form-submit:sqlsnapshot', addressKey: 'form-submit-address:sqlsnapshot', nowMs: 0, windowMs: 60_000, max: 5, addressMax: 20 },
      `EXISTS (SELECT 1 FROM webhooks WHERE workspace_id = $4 AND enabled)`,
    ],
  })
  async storeCountedSubmission(s: Omit<NewSubmission, 'spam'>, rate: VisitorRate, heard: string): Promise<CountedStore | 'heard'> {
    const rows = await preparedQuery<{
      heard: boolean;
      points: number | null;
      expire: string | null;
      address_points: number | null;
      address_expire: string | null;
      spam: boolean | null;
    }>(
      this.dataSource,
      'form_store_counted_submission',
      `WITH listeners AS (
         SELECT $11::text IS NULL AND (${heard}) AS heard
       ), rate AS (
         -- Both counters, the visitor's and its address's, in key order (two posts never lock them crosswise).
         INSERT INTO gate_rate_limits AS r (key, points, expire)
         SELECT k.key, 1, $15::bigint + $16::bigint FROM listeners, unnest(ARRAY[$14::text, $18::text]) AS k(key) WHERE NOT heard ORDER BY k.key
         ON CONFLICT (key) DO UPDATE SET
           points = CASE WHEN r.expire <= $15::bigint THEN 1 ELSE r.points + 1 END,
           expire = CASE WHEN r.expire <= $15::bigint THEN $15::bigint + $16::bigint ELSE r.expire END
         RETURNING key, points, expire
       ), rates AS (
         SELECT max(points) FILTER (WHERE key = $14) AS points, max(expire) FILTER (WHERE key = $14) AS expire,
                max(points) FILTER (WHERE key = $18) AS address_points, max(expire) FILTER (WHERE key = $18) AS address_expire
         FROM rate
       ), verdict AS (
         SELECT COALESCE($11::text, CASE WHEN points > $17::int OR address_points > $19::int THEN 'rate_limited' END) AS spam_reason
         FROM rates WHERE points <= 2 * $17::int AND address_points <= 2 * $19::int
       ), stored AS (
         INSERT INTO form_submissions (id, form_id, project_id, workspace_id, deployment_id, key_id, nonce, ciphertext, index_key_id, search_tokens, spam, spam_reason, lead_id, created_at)
         SELECT $1, f.id, $3, $4, $5, $6, $7, $8, $9, $10, v.spam_reason IS NOT NULL, v.spam_reason,
           (SELECT l.id FROM leads l WHERE l.id = $12 AND l.project_id = $3 FOR KEY SHARE), $13
         FROM (SELECT id FROM forms WHERE id = $2 FOR KEY SHARE) f, verdict v
         RETURNING id, spam
       ), counted AS (${countStored('$2', '$13')})
       SELECT l.heard, r.points, r.expire, r.address_points, r.address_expire, s.spam FROM listeners l LEFT JOIN rates r ON true LEFT JOIN stored s ON true`,
      [
        s.id,
        s.formId,
        s.projectId,
        s.workspaceId,
        s.deploymentId,
        s.keyId,
        s.nonce,
        s.ciphertext,
        s.indexKeyId,
        s.searchTokens,
        s.spamReason,
        s.leadId,
        s.createdAt,
        rate.key,
        rate.nowMs,
        rate.windowMs,
        rate.max,
        rate.addressKey,
        rate.addressMax,
      ],
    );
    const row = rows[0];
    if (row.heard) return 'heard';
    return {
      points: row.points!,
      expireMs: Number(row.expire),
      addressPoints: row.address_points!,
      addressExpireMs: Number(row.address_expire),
      spam: row.spam,
    };
  }
}
