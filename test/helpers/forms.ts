import { newId } from '../../src/common/ids';
import { FORM_COUNTER_SLOTS } from '../../src/forms/form-counter.entity';
import { fieldTokens, sealFields, submissionAad, type SubmissionFields } from '../../src/forms/submission-crypto';
import { LeadsKeyring } from '../../src/leads/keyring';
import type { TestApp } from './app';
import { asUser, type UserSession } from './identity';

/**
 * Forms and submissions written straight to the real database, sealed and indexed as the
 * intake seals them (submission-crypto.ts with the app's own LeadsKeyring), for suites
 * about reading them that must not depend on the intake.
 */

export interface SeededForm {
  id: string;
  projectId: string;
  workspaceId: string;
  name: string;
  fields: string[];
}

export interface SeededSubmission {
  id: string;
  fields: SubmissionFields;
  spam: boolean;
  createdAt: string;
}

/** A project made through the API (no gate). */
export async function plainProject(t: TestApp, owner: UserSession, slug: string): Promise<string> {
  const res = await t.http().post('/projects').set(asUser(owner)).send({ name: slug, slug, type: 'static_site' });
  if (res.status !== 201) throw new Error(`create ${slug}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export async function seedForm(t: TestApp, projectId: string, name: string, fields: string[]): Promise<SeededForm> {
  const [{ workspace_id: workspaceId }] = await t.dataSource.query('SELECT workspace_id FROM projects WHERE id = $1', [projectId]);
  const id = newId('frm');
  await t.dataSource.query('INSERT INTO forms (id, project_id, workspace_id, name, fields) VALUES ($1, $2, $3, $4, $5)', [
    id,
    projectId,
    workspaceId,
    name,
    fields,
  ]);
  return { id, projectId, workspaceId: workspaceId as string, name, fields };
}

/** A sealed submission of the form at `createdAt`, the form's counters and last submission moved as the intake moves them. */
/** Which counter slot the next seeded submission is counted in. */
let seeded = 0;

export async function seedSubmission(
  t: TestApp,
  form: SeededForm,
  fields: SubmissionFields,
  opts: { createdAt: Date; spam?: boolean; spamReason?: string },
): Promise<SeededSubmission> {
  const keyring = t.app.get(LeadsKeyring);
  const id = newId('fsub');
  const key = keyring.current;
  const index = keyring.index(form.workspaceId);
  const sealed = sealFields(key.key, fields, submissionAad(form.id, id));
  const spam = opts.spam ?? false;
  await t.dataSource.transaction(async (m) => {
    await m.query(
      `INSERT INTO form_submissions (id, form_id, project_id, workspace_id, deployment_id, key_id, nonce, ciphertext, index_key_id, search_tokens, spam, spam_reason, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::int[], $11, $12, $13)`,
      [
        id,
        form.id,
        form.projectId,
        form.workspaceId,
        'dep_seeded',
        key.id,
        sealed.nonce,
        sealed.ciphertext,
        index.keyId,
        fieldTokens(index, fields),
        spam,
        spam ? (opts.spamReason ?? 'honeypot') : null,
        opts.createdAt,
      ],
    );
    await m.query(
      `INSERT INTO form_counters AS c (form_id, slot, submissions, spam, last_submission_at) VALUES ($1, $5, $2, $3, $4)
       ON CONFLICT (form_id, slot) DO UPDATE SET submissions = c.submissions + EXCLUDED.submissions, spam = c.spam + EXCLUDED.spam,
         last_submission_at = GREATEST(c.last_submission_at, EXCLUDED.last_submission_at)`,
      // Spread over the slots as the intake's connections spread them, so erasure meets several counter rows.
      [form.id, spam ? 0 : 1, spam ? 1 : 0, spam ? null : opts.createdAt, seeded++ % FORM_COUNTER_SLOTS],
    );
  });
  return { id, fields, spam, createdAt: opts.createdAt.toISOString() };
}
