import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject, submitEmail } from '../helpers/email-gate';
import { asUser, registerUser, type UserSession } from '../helpers/identity';

/** Made of 4-grams that nothing else in the database (ids, hex, user emails, names) contains. */
const SECRETS = ['Zyqvorn.Kexluft@Wyxquob.io', 'jotvisk.plumrax@wyxquob.io'];

/** Every run of 4 characters of the address, lowercased (as stored) and as typed. */
function fourGrams(email: string): string[] {
  const out = new Set<string>();
  for (const form of [email, email.toLowerCase()]) for (let i = 0; i + 4 <= form.length; i++) out.add(form.slice(i, i + 4));
  return [...out];
}

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
}

describe('Leads at rest (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
    owner = await registerUser(t);
    projectId = await emailGatedProject(t, owner, 'vault', 'Vault');
    for (const email of SECRETS) await submitEmail(t, 'vault', email).expect(303);
    await submitEmail(t, 'vault', 'tamper.me@ordinary.example').expect(303);
    await submitEmail(t, 'vault', 'swap.one@ordinary.example').expect(303);
    await submitEmail(t, 'vault', 'swap.two@ordinary.example').expect(303);
    // Searches go through the logs' request lines too.
    await t
      .http()
      .get(`/projects/${projectId}/gate/leads?search=${encodeURIComponent('kexluft@wyxq')}`)
      .set(asUser(owner))
      .expect(200);
  });
  afterAll(() => t?.close());

  const emails = async () =>
    (await t.http().get(`/projects/${projectId}/gate/leads?limit=100`).set(asUser(owner)).expect(200)).body.data as { id: string; email: string }[];

  /** Every place in the database where one of the secrets' 4-grams appears. */
  async function scan(): Promise<string[]> {
    const columns: Column[] = await t.dataSource.query(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'character', 'bytea', 'json', 'jsonb', 'ARRAY')`,
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`)).toEqual(
      expect.arrayContaining([
        'leads.email_ciphertext',
        'leads.email_nonce',
        'leads.email_hash',
        'leads.search_tokens',
        'leads.key_id',
        'leads.id',
        'lead_counters.workspace_id',
      ]),
    );
    const grams = SECRETS.flatMap(fourGrams);
    const found: string[] = [];
    for (const c of columns) {
      const rows: { v: string | Buffer | null }[] = await t.dataSource.query(
        `SELECT ${c.data_type === 'bytea' ? `"${c.column_name}"` : `"${c.column_name}"::text`} AS v FROM "${c.table_name}"`,
      );
      for (const { v } of rows) {
        if (v === null) continue;
        const haystack = Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');
        for (const gram of grams) if (haystack.indexOf(Buffer.from(gram, 'utf8')) !== -1) found.push(`${c.table_name}.${c.column_name} holds "${gram}"`);
      }
    }
    return found;
  }

  it('stores no email, nor any 4 characters of one, in any column of any table', async () => {
    expect(await scan()).toEqual([]);
    // The scan does see plaintext where there is some.
    await t.dataSource.query(`UPDATE projects SET name = 'xx plumr xx' WHERE id = $1`, [projectId]);
    try {
      expect(await scan()).toEqual(['projects.name holds "plum"', 'projects.name holds "lumr"']);
    } finally {
      await t.dataSource.query(`UPDATE projects SET name = 'Vault' WHERE id = $1`, [projectId]);
    }
    expect((await emails()).map((l) => l.email)).toEqual(expect.arrayContaining(SECRETS.map((s) => s.toLowerCase())));
  });

  it('leaves out and logs a lead whose ciphertext was altered, never returning garbage', async () => {
    const target = (await emails()).find((l) => l.email === 'tamper.me@ordinary.example')!;
    await t.dataSource.query(`UPDATE leads SET email_ciphertext = set_byte(email_ciphertext, 0, get_byte(email_ciphertext, 0) # 1) WHERE id = $1`, [target.id]);

    const after = await emails();
    expect(after.map((l) => l.id)).not.toContain(target.id);
    expect(after.every((l) => /^[a-z0-9.@_%+'"\\|=-]+$/.test(l.email))).toBe(true);
    expect(t.logs.some((line) => line.includes(target.id) && line.includes('failed authentication'))).toBe(true);

    const searched = await t.http().get(`/projects/${projectId}/gate/leads?search=tamper`).set(asUser(owner)).expect(200);
    expect(searched.body.data).toEqual([]);
    const csv = await t.http().get(`/projects/${projectId}/gate/leads/export`).set(asUser(owner)).expect(200);
    expect(csv.text).not.toContain(target.id);
  });

  it('refuses ciphertexts moved to another row (the row’s project and id are authenticated)', async () => {
    const list = await emails();
    const one = list.find((l) => l.email === 'swap.one@ordinary.example')!;
    const two = list.find((l) => l.email === 'swap.two@ordinary.example')!;
    await t.dataSource.query(
      `UPDATE leads AS l SET email_nonce = o.email_nonce, email_ciphertext = o.email_ciphertext
       FROM (SELECT id, email_nonce, email_ciphertext FROM leads WHERE id IN ($1, $2)) AS o
       WHERE l.id IN ($1, $2) AND o.id <> l.id`,
      [one.id, two.id],
    );
    const ids = (await emails()).map((l) => l.id);
    expect(ids).not.toContain(one.id);
    expect(ids).not.toContain(two.id);
    expect(t.logs.filter((line) => line.includes('failed authentication') && (line.includes(one.id) || line.includes(two.id)))).toHaveLength(2);
  });

  it('leaves out and logs a lead sealed with a key that is no longer configured', async () => {
    const target = (await emails()).find((l) => l.email === SECRETS[1].toLowerCase())!;
    await t.dataSource.query(`UPDATE leads SET key_id = 'retired' WHERE id = $1`, [target.id]);
    expect((await emails()).map((l) => l.id)).not.toContain(target.id);
    expect(t.logs.some((line) => line.includes(target.id) && line.includes('key id retired'))).toBe(true);
    const searched = await t.http().get(`/projects/${projectId}/gate/leads?search=plumrax`).set(asUser(owner)).expect(200);
    expect(searched.body.meta.total).toBe(0);
    expect(t.logs.some((line) => line.includes('search left out 1 lead(s)') && line.includes('retired'))).toBe(true);
  });

  // Last, so it also covers what the tampering tests logged.
  it('writes no email, nor any 4 characters of one, to the logs', () => {
    const logs = t.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('/gate/leads');
    const leaked = SECRETS.flatMap(fourGrams).filter((g) => logs.includes(g));
    expect(leaked).toEqual([]);
  });
});
