import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject, submitEmail } from '../helpers/email-gate';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

interface Seeded {
  email: string;
  capturedAt: string;
  projectId: string;
}

/** Newest first, as the API orders them (ids break ties, but every seeded time differs). */
const newestFirst = (a: Seeded, b: Seeded) => (a.capturedAt < b.capturedAt ? 1 : a.capturedAt > b.capturedAt ? -1 : 0);

describe('Leads: listing, search, export, erasure (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let bob: UserSession;
  let news: string;
  let launch: string;
  let bobNews: string;
  const seeded: Seeded[] = [];
  let tick = Date.parse('2030-06-01T12:00:00.000Z');

  /** Captures through the real gate at a known, increasing time. */
  async function capture(slug: string, projectId: string, email: string): Promise<void> {
    const at = new Date((tick += 61_001));
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(at);
    try {
      await submitEmail(t, slug, email).expect(303);
    } finally {
      clock.mockRestore();
    }
    seeded.push({ email: email.trim().toLowerCase(), capturedAt: at.toISOString(), projectId });
  }

  const get = (path: string, who: Record<string, string> = asUser(alice)) => t.http().get(path).set(who);
  const of = (projectId: string) => seeded.filter((s) => s.projectId === projectId).sort(newestFirst);

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
    alice = await registerUser(t);
    bob = await registerUser(t);
    news = await emailGatedProject(t, alice, 'alpha-news', 'Alpha News');
    launch = await emailGatedProject(t, alice, 'alpha-launch', 'Alpha Launch');
    bobNews = await emailGatedProject(t, bob, 'beta-news', 'Beta News');
    for (let i = 1; i <= 21; i++) await capture('alpha-news', news, `member${String(i).padStart(2, '0')}@list.example`);
    for (const email of [
      "o'brien_100%@quirks.example",
      '"back\\slash"@quirks.example',
      'UPPER.Case@Mixed.Example',
      'shared.person@both.example',
      '=cmd|calc@quirks.example',
      '+1@quirks.example',
    ]) {
      await capture('alpha-news', news, email);
    }
    for (const email of ['first@launch.example', 'second@launch.example', 'third@launch.example']) await capture('alpha-launch', launch, email);
    for (const email of ['shared.person@both.example', 'only.bob@beta.example']) await capture('beta-news', bobNews, email);
  });
  afterAll(() => t?.close());

  describe('GET /projects/:projectId/gate/leads', () => {
    it('lists the project’s leads newest first, 20 per page by default, in the spec’s envelope', async () => {
      const expected = of(news);
      const res = await get(`/projects/${news}/gate/leads`).expect(200);
      expect(res.body.meta).toEqual({ total: expected.length, page: 1, limit: 20, totalPages: Math.ceil(expected.length / 20) });
      expect(res.body.data.map((l: { email: string }) => l.email)).toEqual(expected.slice(0, 20).map((s) => s.email));
      expect(res.body.data.map((l: { capturedAt: string }) => l.capturedAt)).toEqual(expected.slice(0, 20).map((s) => s.capturedAt));
      for (const lead of res.body.data) expect(Object.keys(lead).sort()).toEqual(['capturedAt', 'email', 'id']);

      const second = await get(`/projects/${news}/gate/leads?page=2`).expect(200);
      expect(second.body.data.map((l: { email: string }) => l.email)).toEqual(expected.slice(20).map((s) => s.email));
      const beyond = await get(`/projects/${news}/gate/leads?page=9&limit=5`).expect(200);
      expect(beyond.body).toEqual({ data: [], meta: { total: expected.length, page: 9, limit: 5, totalPages: Math.ceil(expected.length / 5) } });
      const all = await get(`/projects/${news}/gate/leads?limit=100`).expect(200);
      expect(all.body.data).toHaveLength(expected.length);
    });

    it.each([
      ['page=0', 'page: must be a positive integer'],
      ['page=-1', 'page: must be a positive integer'],
      ['page=1.5', 'page: must be a positive integer'],
      ['page=abc', 'page: must be a positive integer'],
      ['page=', 'page: must be a positive integer'],
      ['page=1&page=2', 'page: must be a positive integer'],
      ['page=99999999999', 'page: must be at most 2147483647'],
      ['limit=0', 'limit: must be a positive integer'],
      ['limit=abc', 'limit: must be a positive integer'],
      ['limit=2.5', 'limit: must be a positive integer'],
      ['limit=101', 'limit: must be at most 100'],
      ['search=<255 characters>', 'search: must be at most 254 characters'],
      ['search=a&search=b', 'search: must be a string'],
      // A search's pages end at its newest 10,000 matches: a page past them would hold every match in memory.
      ['search=a&page=101&limit=100', 'page: a search pages through its newest 10000 matches'],
      ['sort=email', 'property sort should not exist'],
    ])('answers ?%s with a 400 naming the parameter', async (query, message) => {
      const res = await get(`/projects/${news}/gate/leads?${query.replace('<255 characters>', 'x'.repeat(255))}`).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain(message);
    });

    it('is a 404 for another workspace’s project, and needs the read scope', async () => {
      await get(`/projects/${bobNews}/gate/leads`).expect(404);
      await get(`/projects/proj_doesnotexist/gate/leads`).expect(404);
      const deployOnly = await createApiToken(t, alice, { scopes: ['deploy'] });
      const denied = await get(`/projects/${news}/gate/leads`, bearer(deployOnly.token)).expect(403);
      expect(denied.body.code).toBe('insufficient_scope');
      await t.http().get(`/projects/${news}/gate/leads`).expect(401);
    });
  });

  describe('GET /projects/gate/leads', () => {
    it('lists the whole workspace, 25 per page by default, each lead with its project', async () => {
      const expected = seeded.filter((s) => s.projectId !== bobNews).sort(newestFirst);
      const res = await get('/projects/gate/leads').expect(200);
      expect(res.body.meta).toEqual({ total: expected.length, page: 1, limit: 25, totalPages: Math.ceil(expected.length / 25) });
      expect(res.body.data.map((l: { email: string }) => l.email)).toEqual(expected.slice(0, 25).map((s) => s.email));
      const top = res.body.data[0];
      expect(Object.keys(top).sort()).toEqual(['capturedAt', 'email', 'id', 'projectId', 'projectName', 'projectSlug']);
      expect(top).toMatchObject({ projectId: launch, projectName: 'Alpha Launch', projectSlug: 'alpha-launch', email: 'third@launch.example' });
      const newsLead = res.body.data.find((l: { projectId: string }) => l.projectId === news);
      expect(newsLead).toMatchObject({ projectName: 'Alpha News', projectSlug: 'alpha-news' });
    });

    it('narrows to one project with projectId; another workspace’s project is a 404', async () => {
      const res = await get(`/projects/gate/leads?projectId=${launch}`).expect(200);
      expect(res.body.data.map((l: { email: string }) => l.email)).toEqual(of(launch).map((s) => s.email));
      expect(res.body.meta.total).toBe(3);
      await get(`/projects/gate/leads?projectId=${bobNews}`).expect(404);
      await get('/projects/gate/leads?projectId=proj_nope').expect(404);
      const bobs = await get('/projects/gate/leads', asUser(bob)).expect(200);
      expect(bobs.body.data.map((l: { email: string }) => l.email).sort()).toEqual(['only.bob@beta.example', 'shared.person@both.example']);
    });

    it('shows a project-bound token its own project only', async () => {
      const bound = await createApiToken(t, alice, { scopes: ['read'], projectId: launch });
      const res = await get('/projects/gate/leads', bearer(bound.token)).expect(200);
      expect(res.body.meta.total).toBe(3);
      expect(new Set(res.body.data.map((l: { projectId: string }) => l.projectId))).toEqual(new Set([launch]));
      await get(`/projects/gate/leads?projectId=${news}`, bearer(bound.token)).expect(404);
      await get(`/projects/${news}/gate/leads`, bearer(bound.token)).expect(404);
      await get(`/projects/${launch}/gate/leads`, bearer(bound.token)).expect(200);
    });

    it.each([
      ['limit=101', 'limit: must be at most 100'],
      ['limit=0', 'limit: must be a positive integer'],
      ['page=0', 'page: must be a positive integer'],
      ['projectId=a&projectId=b', 'projectId: must be a string'],
    ])('answers ?%s with a 400 naming the parameter', async (query, message) => {
      const res = await get(`/projects/gate/leads?${query}`).expect(400);
      expect(res.body.message).toContain(message);
    });
  });

  describe('search', () => {
    const search = async (path: string, term: string, who = asUser(alice)) => {
      const res = await get(`${path}${path.includes('?') ? '&' : '?'}limit=100&search=${encodeURIComponent(term)}`, who).expect(200);
      return res.body as { data: { email: string; capturedAt: string; projectId?: string }[]; meta: { total: number } };
    };

    it('keeps leads whose email contains the value, case-insensitively', async () => {
      const upper = await search(`/projects/${news}/gate/leads`, 'UPPER.CASE@mixed');
      expect(upper.data.map((l) => l.email)).toEqual(['upper.case@mixed.example']);
      const members = await search(`/projects/${news}/gate/leads`, 'MeMbEr1');
      expect(members.data.map((l) => l.email)).toEqual(
        of(news)
          .filter((s) => s.email.includes('member1'))
          .map((s) => s.email),
      );
      expect(members.meta.total).toBe(10);
    });

    it.each([
      ['%', ["o'brien_100%@quirks.example"]],
      ['_', ["o'brien_100%@quirks.example"]],
      ["'", ["o'brien_100%@quirks.example"]],
      ['\\', ['"back\\slash"@quirks.example']],
      ['"', ['"back\\slash"@quirks.example']],
      ['100%@', ["o'brien_100%@quirks.example"]],
      ['|', ['=cmd|calc@quirks.example']],
      ['nothing-like-this', []],
    ])('treats %j literally', async (term, emails) => {
      const res = await search(`/projects/${news}/gate/leads`, term);
      expect(res.data.map((l) => l.email)).toEqual(emails);
      expect(res.meta.total).toBe(emails.length);
    });

    it('answers exactly what a plain substring filter would, for short and long values, on both endpoints', async () => {
      const workspace = seeded.filter((s) => s.projectId !== bobNews).sort(newestFirst);
      const terms = ['e', 'm', '.', '@', 'q', 'me', 'ex', '1@', 'ber', 'ist', 'mple', '@list.', 'quirks.example', 'ember2', 'launch', 'person@both', 'r0', '0'];
      for (const term of terms) {
        const inProject = await search(`/projects/${news}/gate/leads`, term);
        const wanted = of(news).filter((s) => s.email.includes(term));
        expect({ term, emails: inProject.data.map((l) => l.email), total: inProject.meta.total }).toEqual({
          term,
          emails: wanted.map((s) => s.email).slice(0, 100),
          total: wanted.length,
        });
        const inWorkspace = await search('/projects/gate/leads', term);
        const wantedAll = workspace.filter((s) => s.email.includes(term));
        expect({ term, emails: inWorkspace.data.map((l) => l.email), total: inWorkspace.meta.total }).toEqual({
          term,
          emails: wantedAll.map((s) => s.email),
          total: wantedAll.length,
        });
      }
    });

    it('pages through search results like through the list', async () => {
      const wanted = of(news).filter((s) => s.email.includes('member'));
      const pages = [];
      for (let page = 1; page <= 5; page++) {
        const res = await get(`/projects/${news}/gate/leads?search=member&limit=5&page=${page}`).expect(200);
        expect(res.body.meta).toEqual({ total: wanted.length, page, limit: 5, totalPages: Math.ceil(wanted.length / 5) });
        pages.push(...res.body.data.map((l: { email: string }) => l.email));
      }
      expect(pages).toEqual(wanted.map((s) => s.email));
    });

    it('never crosses workspaces, even for the same email', async () => {
      const mine = await search('/projects/gate/leads', 'shared.person');
      expect(mine.data.map((l) => l.projectId)).toEqual([news]);
      const bobs = await search('/projects/gate/leads', 'shared.person', asUser(bob));
      expect(bobs.data.map((l) => l.projectId)).toEqual([bobNews]);
      const onlyBob = await search('/projects/gate/leads', 'only.bob');
      expect(onlyBob.meta.total).toBe(0);
      expect((await search('/projects/gate/leads', 'e', asUser(bob))).meta.total).toBe(2);
    });
  });

  describe('GET /projects/:projectId/gate/leads/export', () => {
    const parse = (csv: string) => csv.split('\r\n').slice(0, -1);

    it('streams the project’s leads as CSV, newest first, formula-looking values defused', async () => {
      const res = await get(`/projects/${news}/gate/leads/export`).expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="alpha-news-leads.csv"');
      expect(res.headers['cache-control']).toBe('private, no-store');
      const lines = parse(res.text);
      expect(lines[0]).toBe('id,email,capturedAt');
      expect(lines).toHaveLength(of(news).length + 1);
      expect(lines[1]).toMatch(/^lead_[0-9a-z]{24},'\+1@quirks\.example,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(lines[2]).toMatch(/,'=cmd\|calc@quirks\.example,/);
      expect(lines).toContainEqual(expect.stringMatching(/,"""back\\slash""@quirks\.example",/));
      const emails = lines.slice(1).map((l) => l.split(',')[1]);
      expect(emails.slice(2)).toEqual(
        of(news)
          .slice(2)
          .map((s) => (s.email.includes('"') ? `"${s.email.replace(/"/g, '""')}"` : s.email)),
      );
    });

    it('filters with search like the list does', async () => {
      const res = await get(`/projects/${news}/gate/leads/export?search=MEMBER0`).expect(200);
      const emails = parse(res.text)
        .slice(1)
        .map((l) => l.split(',')[1]);
      expect(emails).toEqual(
        of(news)
          .filter((s) => s.email.includes('member0'))
          .map((s) => s.email),
      );
    });

    it('is a 404 for another workspace and needs the read scope', async () => {
      await get(`/projects/${bobNews}/gate/leads/export`).expect(404);
      const deployOnly = await createApiToken(t, alice, { scopes: ['deploy'] });
      await get(`/projects/${news}/gate/leads/export`, bearer(deployOnly.token)).expect(403);
      await get(`/projects/${news}/gate/leads/export?foo=1`).expect(400);
    });
  });

  describe('DELETE /projects/:projectId/gate/leads/:leadId', () => {
    it('erases a lead (204): gone from lists, search and totals; a second delete is a 404', async () => {
      const before = (await get(`/projects/${launch}/gate/leads`).expect(200)).body;
      const target = before.data.find((l: { email: string }) => l.email === 'second@launch.example');
      const workspaceTotal = (await get('/projects/gate/leads').expect(200)).body.meta.total;

      await t.http().delete(`/projects/${launch}/gate/leads/${target.id}`).set(asUser(alice)).expect(204);

      const after = (await get(`/projects/${launch}/gate/leads`).expect(200)).body;
      expect(after.meta.total).toBe(before.meta.total - 1);
      expect(after.data.map((l: { id: string }) => l.id)).not.toContain(target.id);
      expect((await get('/projects/gate/leads').expect(200)).body.meta.total).toBe(workspaceTotal - 1);
      expect((await get(`/projects/${launch}/gate/leads?search=second`).expect(200)).body.meta.total).toBe(0);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM leads WHERE id = $1', [target.id]);
      expect(n).toBe(0);
      await t.http().delete(`/projects/${launch}/gate/leads/${target.id}`).set(asUser(alice)).expect(404);
      seeded.splice(
        seeded.findIndex((s) => s.email === 'second@launch.example'),
        1,
      );
    });

    it('is a 404 through another project or workspace, and needs the delete scope', async () => {
      const lead = (await get(`/projects/${launch}/gate/leads`).expect(200)).body.data[0];
      await t.http().delete(`/projects/${news}/gate/leads/${lead.id}`).set(asUser(alice)).expect(404);
      await t.http().delete(`/projects/${launch}/gate/leads/${lead.id}`).set(asUser(bob)).expect(404);
      const readOnly = await createApiToken(t, alice, { scopes: ['read'] });
      const denied = await t.http().delete(`/projects/${launch}/gate/leads/${lead.id}`).set(bearer(readOnly.token)).expect(403);
      expect(denied.body.code).toBe('insufficient_scope');
      expect((await get(`/projects/${launch}/gate/leads`).expect(200)).body.data[0].id).toBe(lead.id);
    });
  });

  it('deletes a project’s leads with the project', async () => {
    const temp = await emailGatedProject(t, bob, 'beta-temp');
    await submitEmail(t, 'beta-temp', 'short.lived@temp.example').expect(303);
    const count = async () => (await t.dataSource.query('SELECT count(*)::int AS n FROM leads WHERE project_id = $1', [temp]))[0].n;
    expect(await count()).toBe(1);
    await t.http().delete(`/projects/${temp}`).set(asUser(bob)).expect(204);
    expect(await count()).toBe(0);
    expect(await t.dataSource.query('SELECT * FROM lead_counters WHERE project_id = $1', [temp])).toEqual([]);
    expect((await get('/projects/gate/leads', asUser(bob)).expect(200)).body.meta.total).toBe(2);
  });
});
