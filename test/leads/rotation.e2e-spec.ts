import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { LeadsKeyring } from '../../src/leads/keyring';
import { rotateLeads } from '../../src/leads/leads-rotation';
import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject, submitEmail } from '../helpers/email-gate';
import { type SeededForm, seedForm, seedSubmission } from '../helpers/forms';
import { asUser, registerUser, type UserSession } from '../helpers/identity';

const key = () => randomBytes(32).toString('base64');
const K1 = `k1:${key()}`;
const K2 = `k2:${key()}`;
const IDX1 = `idx1:${key()}`;
const IDX2 = `idx2:${key()}`;
const EMAILS = [
  'ada@rotate.example',
  'grace@rotate.example',
  'edsger@rotate.example',
  'barbara@rotate.example',
  'donald@rotate.example',
  'frances@rotate.example',
  'tony@rotate.example',
];

describe('Key rotation: npm run leads:rotate (e2e)', () => {
  let before: TestApp;
  const others: TestApp[] = [];
  let owner: UserSession;
  let projectId: string;
  /** A form submission sealed under K1 and IDX1, which only the command line rotates. */
  let form: SeededForm;
  /** Retires K2 in the second test; the third test keeps it alone. */
  const K3 = `k3:${key()}`;

  /** Another instance on the same database and data directory, with its own keys. */
  async function instance(keys: { LEADS_ENCRYPTION_KEYS: string; LEADS_INDEX_KEY: string }): Promise<TestApp> {
    const t = await startTestApp({ sibling: before, env: { TRUST_PROXY: 'true', ...keys } });
    others.push(t);
    return t;
  }
  const list = async (t: TestApp, search?: string) =>
    (
      await t
        .http()
        .get(`/projects/${projectId}/gate/leads?limit=100${search ? `&search=${search}` : ''}`)
        .set(asUser(owner))
        .expect(200)
    ).body as {
      data: { id: string; email: string; capturedAt: string }[];
      meta: { total: number };
    };
  const keyIds = async () =>
    (await before.dataSource.query('SELECT key_id, index_key_id, count(*)::int AS n FROM leads GROUP BY 1, 2 ORDER BY 1, 2')) as {
      key_id: string;
      index_key_id: string;
      n: number;
    }[];

  beforeAll(async () => {
    before = await startTestApp({ env: { TRUST_PROXY: 'true', LEADS_ENCRYPTION_KEYS: K1, LEADS_INDEX_KEY: IDX1 } });
    owner = await registerUser(before);
    projectId = await emailGatedProject(before, owner, 'rotating');
    for (const email of EMAILS) await submitEmail(before, 'rotating', email).expect(303);
    form = await seedForm(before, projectId, 'contact', ['name', 'message']);
    await seedSubmission(before, form, { name: 'Rotating Rita', message: 'Keep me readable' }, { createdAt: new Date() });
  });
  afterAll(async () => {
    for (const t of others.reverse()) await t.close();
    await before?.close();
  });

  it('re-encrypts every lead under the newest key, resumably and idempotently', async () => {
    const original = await list(before);
    const nonces = new Map<string, string>(
      (await before.dataSource.query("SELECT id, encode(email_nonce, 'hex') AS n FROM leads")).map((r: { id: string; n: string }) => [r.id, r.n]),
    );
    const both = await instance({ LEADS_ENCRYPTION_KEYS: `${K2},${K1}`, LEADS_INDEX_KEY: IDX1 });
    const ring = both.app.get(LeadsKeyring);
    expect(ring.current.id).toBe('k2');

    // New captures are sealed with the first key at once.
    await submitEmail(both, 'rotating', 'newcomer@rotate.example').expect(303);
    expect(await keyIds()).toEqual([
      { key_id: 'k1', index_key_id: 'idx1', n: 7 },
      { key_id: 'k2', index_key_id: 'idx1', n: 1 },
    ]);

    // Interrupted after one batch of 3: the rest waits, everything stays readable.
    const partial = await rotateLeads(both.dataSource, ring, { batchSize: 3, maxBatches: 1 });
    expect(partial).toEqual({ examined: 3, resealed: 3, reindexed: 0, merged: 0, failed: 0, remaining: 4 });
    expect((await list(both)).meta.total).toBe(8);
    expect((await list(both)).data).toHaveLength(8);

    const rest = await rotateLeads(both.dataSource, ring, { batchSize: 3 });
    expect(rest).toEqual({ examined: 4, resealed: 4, reindexed: 0, merged: 0, failed: 0, remaining: 0 });
    expect(await keyIds()).toEqual([{ key_id: 'k2', index_key_id: 'idx1', n: 8 }]);
    const after = await before.dataSource.query("SELECT id, encode(email_nonce, 'hex') AS n FROM leads");
    for (const row of after as { id: string; n: string }[]) if (nonces.has(row.id)) expect(row.n).not.toBe(nonces.get(row.id));

    // Nothing left to do: a third run changes nothing.
    expect(await rotateLeads(both.dataSource, ring)).toEqual({ examined: 0, resealed: 0, reindexed: 0, merged: 0, failed: 0, remaining: 0 });

    // k1 can now be retired: an instance with k2 alone reads every lead, unchanged; one with k1 alone reads none.
    const onlyNew = await instance({ LEADS_ENCRYPTION_KEYS: K2, LEADS_INDEX_KEY: IDX1 });
    const reread = await list(onlyNew);
    expect(reread.data.filter((l) => l.email !== 'newcomer@rotate.example')).toEqual(original.data);
    expect((await list(onlyNew, 'grace')).data.map((l) => l.email)).toEqual(['grace@rotate.example']);
    expect((await list(before)).data).toEqual([]);
    // Nest's Logger writes through the app created last in this process: look at every instance's log.
    expect([before, ...others].some((t) => t.logs.some((l) => l.includes('key id k2, which is not configured')))).toBe(true);
  });

  it('skips, logs and reports a lead that does not authenticate, leaving it as it was', async () => {
    const t = await instance({ LEADS_ENCRYPTION_KEYS: `${K3},${K2}`, LEADS_INDEX_KEY: IDX1 });
    const victim = (await list(t)).data.find((l) => l.email === 'tony@rotate.example')!;
    await before.dataSource.query('UPDATE leads SET email_ciphertext = set_byte(email_ciphertext, 3, get_byte(email_ciphertext, 3) # 128) WHERE id = $1', [
      victim.id,
    ]);
    const logged: string[] = [];
    const stats = await rotateLeads(t.dataSource, t.app.get(LeadsKeyring), {
      log: { info: () => undefined, error: (fields, message) => logged.push(`${JSON.stringify(fields)} ${message}`) },
    });
    expect(stats).toEqual({ examined: 8, resealed: 7, reindexed: 0, merged: 0, failed: 1, remaining: 1 });
    expect(logged).toEqual([expect.stringContaining(victim.id)]);
    expect(logged[0]).toContain('failed authentication');
    expect(await keyIds()).toEqual([
      { key_id: 'k2', index_key_id: 'idx1', n: 1 },
      { key_id: 'k3', index_key_id: 'idx1', n: 7 },
    ]);
    await before.dataSource.query('DELETE FROM leads WHERE id = $1', [victim.id]);
    await before.dataSource.query('UPDATE lead_counters SET lead_count = lead_count - 1 WHERE project_id = $1', [projectId]);
  });

  it('after LEADS_INDEX_KEY changes, reindexes through the command line and merges emails captured twice meanwhile', async () => {
    const t = await instance({ LEADS_ENCRYPTION_KEYS: K3, LEADS_INDEX_KEY: IDX2 });
    // Until reindexed, the new index finds nothing and lets a returning visitor in twice.
    expect((await list(t, 'grace')).meta.total).toBe(0);
    await submitEmail(t, 'rotating', 'Grace@Rotate.example').expect(303);
    expect((await list(t)).data.filter((l) => l.email === 'grace@rotate.example')).toHaveLength(2);
    const first = (await list(t)).data.filter((l) => l.email === 'grace@rotate.example').sort((a, b) => a.capturedAt.localeCompare(b.capturedAt))[0];

    const { stdout } = await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', join('scripts', 'leads-rotate.ts'), '--batch-size', '2'], {
      cwd: join(__dirname, '..', '..'),
      // K1 still opens the form submission the leads' rotations above left alone.
      env: {
        ...process.env,
        DATABASE_URL: before.databaseUrl,
        DATA_DIR: before.dataDir,
        LEADS_ENCRYPTION_KEYS: `${K3},${K1}`,
        LEADS_INDEX_KEY: IDX2,
        LOG_LEVEL: 'info',
      },
      timeout: 120_000,
    });
    const summary = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ msg: 'every lead is under the current keys', examined: 7, resealed: 7, reindexed: 7, merged: 1, failed: 0, remaining: 0 });
    expect(stdout).not.toContain('rotate.example');
    expect(stdout).toContain('every form submission is under the current keys');
    for (const what of ['webhook signing secret', 'webhook delivery body', 'TOTP secret', 'SSO client secret'])
      expect(stdout).toContain(`every ${what} is under the current key`);
    expect(stdout).not.toContain('Rotating Rita');

    // The submission moved to K3 and IDX2: an instance without K1 still lists it, and finds it by search.
    expect(await before.dataSource.query('SELECT key_id, index_key_id FROM form_submissions WHERE form_id = $1', [form.id])).toEqual([
      { key_id: 'k3', index_key_id: 'idx2' },
    ]);
    const found = await t.http().get(`/projects/${projectId}/forms/${form.id}/submissions?search=rita`).set(asUser(owner)).expect(200);
    expect(found.body.data.map((s: { fields: Record<string, string> }) => s.fields)).toEqual([{ name: 'Rotating Rita', message: 'Keep me readable' }]);

    expect(await keyIds()).toEqual([{ key_id: 'k3', index_key_id: 'idx2', n: 7 }]);
    const graces = (await list(t, 'GRACE')).data;
    expect(graces).toEqual([first]);
    const all = await list(t);
    expect(all.meta.total).toBe(7);
    expect(all.data.map((l) => l.email).sort()).toEqual([...EMAILS.filter((e) => e !== 'tony@rotate.example'), 'newcomer@rotate.example'].sort());
  });
});
