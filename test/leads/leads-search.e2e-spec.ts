import { Clock } from '../../src/common/time';
import { LeadsKeyring } from '../../src/leads/keyring';
import { trigrams } from '../../src/leads/lead-crypto';
import { LeadsService } from '../../src/leads/leads.service';
import { rotateLeads } from '../../src/leads/leads-rotation';
import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject } from '../helpers/email-gate';
import { asUser, registerUser, type UserSession } from '../helpers/identity';

interface Seeded {
  email: string;
  at: number;
  projectId: string;
}

/**
 * Search through the domain dictionary (lead_domains): leads whose domain contains the
 * search text are counted without being decrypted, the others are checked by decryption
 * of their local-part candidates. Totals and pages must stay exactly those of a plain
 * substring filter, including where the blind index lets through leads that do not match.
 */
describe('Leads search: exact totals through the domain dictionary (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let one: string;
  let two: string;
  let workspaceId: string;
  /** A rare trigram, and another one that has the same truncated token in alice's workspace. */
  let rare: string;
  let twin: string;
  const seeded: Seeded[] = [];
  let tick = Date.parse('2031-01-01T00:00:00.000Z');

  async function capture(projectId: string, email: string): Promise<void> {
    const at = new Date((tick += 1000));
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(at);
    try {
      expect(await t.app.get(LeadsService).capture(projectId, email)).toMatchObject({ outcome: 'captured' });
    } finally {
      clock.mockRestore();
    }
    seeded.push({ email, at: at.getTime(), projectId });
  }

  const search = async (path: string, term: string, query = 'limit=100') =>
    (
      await t
        .http()
        .get(`${path}?${query}&search=${encodeURIComponent(term)}`)
        .set(asUser(alice))
        .expect(200)
    ).body as { data: { email: string }[]; meta: { total: number } };

  /** Every term on both endpoints, all pages, against a plain substring filter. */
  async function expectExact(terms: string[]): Promise<void> {
    for (const term of terms) {
      for (const [path, scope] of [
        ['/projects/gate/leads', seeded],
        [`/projects/${one}/gate/leads`, seeded.filter((s) => s.projectId === one)],
      ] as const) {
        const wanted = scope.filter((s) => s.email.includes(term)).sort((a, b) => b.at - a.at);
        const all = await search(path, term);
        expect({ term, path, total: all.meta.total, emails: all.data.map((l) => l.email) }).toEqual({
          term,
          path,
          total: wanted.length,
          emails: wanted.map((s) => s.email),
        });
        // Pages of 3 put sure (dictionary) and decrypted matches on the same page.
        const paged: string[] = [];
        for (let page = 1; page <= Math.ceil(wanted.length / 3); page++) {
          const res = await search(path, term, `limit=3&page=${page}`);
          expect({ term, page, total: res.meta.total }).toEqual({ term, page, total: wanted.length });
          paged.push(...res.data.map((l) => l.email));
        }
        expect({ term, paged }).toEqual({ term, paged: wanted.map((s) => s.email) });
      }
    }
  }

  const dictionarySize = async () =>
    ((await t.dataSource.query('SELECT count(*)::int AS n FROM lead_domains WHERE workspace_id = $1', [workspaceId])) as { n: number }[])[0].n;

  const TERMS = ['glotrix', 'glotr', 'otrix', 'rix.', 'fan', 'example', '.example', 'x', 'gl', 'o', '@glotrix', 'fan@', 'glotrix.fan@other', 'nothing-like-it'];

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
    alice = await registerUser(t);
    one = await emailGatedProject(t, alice, 'dict-one');
    two = await emailGatedProject(t, alice, 'dict-two');
    workspaceId = ((await t.dataSource.query('SELECT workspace_id FROM projects WHERE id = $1', [one])) as { workspace_id: string }[])[0].workspace_id;
    const index = t.app.get(LeadsKeyring).index(workspaceId);
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
    // About 2.8 of the 46,656 trigrams share a given one's bucket: one of these terms has a twin.
    search: for (const term of ['qzv', 'qzw', 'vqz', 'zqj', 'jqz']) {
      for (const a of letters)
        for (const b of letters)
          for (const c of letters) {
            const candidate = a + b + c;
            if (candidate !== term && index.token(candidate) === index.token(term)) {
              [rare, twin] = [term, candidate];
              break search;
            }
          }
    }
    expect(twin).toBeDefined();
    const emails: [string, string][] = [
      // The term in the domain: decided by the dictionary.
      [one, 'a1@glotrix.example'],
      [one, 'b2@glotrix.example'],
      [two, 'c3@glotrix.example'],
      [one, 'd4@glotrix.example'],
      // In the local part only: found by decryption.
      [one, 'glotrix.fan@other.example'],
      [two, 'big.glotrix@other.example'],
      // In both: counted once.
      [one, 'glotrix@glotrix.example'],
      // Every trigram of "glotrix", never in that order: candidates that do not match.
      [one, 'glotr-otrix@fp.example'],
      [two, 'x@glotr-otrix.example'],
      [one, 'y@glotr-otrix.example'],
      // Sharing a truncated token with the rare trigram without holding it, in either part.
      [one, `${twin}@other.example`],
      [one, `z@${twin}.example`],
      [one, `${rare}@other.example`],
      [two, `w@${rare}.example`],
      [one, 'solo@only-one.example'],
    ];
    for (const [projectId, email] of emails) await capture(projectId, email);
  });
  afterAll(() => t?.close());

  it('keeps the workspace’s distinct domains, sealed, one entry each', async () => {
    const domains = new Set(seeded.map((s) => s.email.split('@')[1]));
    expect(await dictionarySize()).toBe(domains.size);
    const [{ unsplit }] = await t.dataSource.query('SELECT count(*)::int AS unsplit FROM leads WHERE domain_hash IS NULL OR local_tokens IS NULL');
    expect(unsplit).toBe(0);
    // The truncated tokens really do let the twins through (else the next test proves less).
    const index = t.app.get(LeadsKeyring).index(workspaceId);
    expect(trigrams(twin)).toEqual([twin]);
    expect(index.tokens(`z@${twin}.example`)).toEqual(expect.arrayContaining(index.tokens(rare)));
  });

  it('gives the exact total and pages for terms in domains, local parts, both, across the @, and under 3 characters', async () => {
    await expectExact([...TERMS, rare, twin]);
  }, 60_000);

  it('drops a domain from the dictionary with its last lead, and keeps it while one remains', async () => {
    const before = await dictionarySize();
    const ids = (await t.dataSource.query(`SELECT id, project_id FROM leads WHERE project_id = $1`, [one])) as { id: string; project_id: string }[];
    const leads = await t.app.get(LeadsService).list({ workspaceId, projectId: one }, { page: 1, limit: 100 });
    const byEmail = new Map(leads.data.map((l) => [l.email, l.id]));
    expect(ids.length).toBe(leads.data.length);
    const erase = async (email: string) => {
      await t
        .http()
        .delete(`/projects/${one}/gate/leads/${byEmail.get(email)}`)
        .set(asUser(alice))
        .expect(204);
      seeded.splice(
        seeded.findIndex((s) => s.email === email),
        1,
      );
    };
    await erase('a1@glotrix.example');
    expect(await dictionarySize()).toBe(before);
    await erase('solo@only-one.example');
    expect(await dictionarySize()).toBe(before - 1);
    await expectExact(['glotrix', 'only-one', 'solo', 'o']);
  }, 60_000);

  it('searches leads stored before the dictionary existed by decryption, and leads:rotate brings them in', async () => {
    // As the migration leaves them: no domain digest, no local tokens, no dictionary.
    await t.dataSource.query('UPDATE leads SET domain_hash = NULL, local_tokens = NULL WHERE workspace_id = $1', [workspaceId]);
    await t.dataSource.query('DELETE FROM lead_domains WHERE workspace_id = $1', [workspaceId]);
    await expectExact([...TERMS, rare]);
    const stats = await rotateLeads(t.dataSource, t.app.get(LeadsKeyring));
    expect(stats).toMatchObject({ examined: seeded.length, resealed: seeded.length, failed: 0, remaining: 0 });
    expect(await dictionarySize()).toBe(new Set(seeded.map((s) => s.email.split('@')[1])).size);
    await expectExact([...TERMS, rare]);
    // A second run has nothing left to do.
    expect(await rotateLeads(t.dataSource, t.app.get(LeadsKeyring))).toMatchObject({ examined: 0, remaining: 0 });
  }, 60_000);
});
