import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, createApiToken, registerUser, uniqueEmail, type UserSession } from '../helpers/identity';
import type { ListPage } from '../helpers/list-page';

interface Listed {
  id: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
}
type Page = ListPage<Listed>;

/**
 * GET /workspaces/:id/members?search=&role=&status= — the members and invitations of a
 * workspace narrowed on the server, oldest invitation first, the total and pages counting
 * only what matches.
 */
describe('GET /workspaces/:id/members: search, role and status (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let bob: UserSession;
  /** Emails by who they are, in the order they were invited. */
  const email: Record<string, string> = {};

  const list = async (query: string, session: UserSession = alice): Promise<Page> =>
    (await t.http().get(`/workspaces/${session.workspaceId}/members?${query}`).set(asUser(session)).expect(200)).body;
  const emails = (page: Page) => page.data.map((m) => m.email);
  const invite = async (address: string, role: string) =>
    t.http().post(`/workspaces/${alice.workspaceId}/members`).set(asUser(alice)).send({ email: address, role }).expect(201);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t, { name: 'Alice Owner' });
    bob = await registerUser(t, { name: 'Quill of Bob' });
    email.alice = alice.email;
    const bea = await registerUser(t, { name: 'Beatrix Quill' });
    await addMember(t, alice, bea, 'admin');
    email.bea = bea.email;
    const dee = await registerUser(t, { name: 'Dee 50% Stake' });
    await addMember(t, alice, dee, 'viewer');
    email.dee = dee.email;
    // Invitations: an email and nothing else, until someone accepts.
    const suffix = uniqueEmail('x').slice(2);
    email.snake = `snake_case${suffix}`;
    email.snakeX = `snakexcase${suffix}`;
    email.quill = `quill-invite${suffix}`;
    await invite(email.snake, 'viewer');
    await invite(email.snakeX, 'admin');
    await invite(email.quill, 'viewer');
    // Bob's workspace holds Alice's admin too: she must never show in Bob's lists, nor his people in hers.
    await addMember(t, bob, bea, 'viewer');
  });
  afterAll(() => t?.close());

  it('keeps the oldest invitation first, and names each person who joined', async () => {
    const page = await list('');
    expect(emails(page)).toEqual([email.alice, email.bea, email.dee, email.snake, email.snakeX, email.quill]);
    expect(page.data.map((m) => m.name)).toEqual(['Alice Owner', 'Beatrix Quill', 'Dee 50% Stake', null, null, null]);
    expect(page.meta).toEqual({ total: 6, page: 1, limit: 20, totalPages: 1 });
  });

  describe('search', () => {
    it('matches a part of the email, case-insensitively', async () => {
      expect(emails(await list('search=SNAKEX'))).toEqual([email.snakeX]);
    });

    it('matches a part of the account name, and an invitation by its email only', async () => {
      const page = await list('search=quill');
      expect(page.data.map((m) => [m.email, m.name])).toEqual([
        [email.bea, 'Beatrix Quill'],
        [email.quill, null],
      ]);
      expect(page.meta.total).toBe(2);
    });

    it('trims the text', async () => {
      expect(emails(await list(`search=${encodeURIComponent('  beatrix ')}`))).toEqual([email.bea]);
    });

    it('takes % and _ literally', async () => {
      expect(emails(await list(`search=${encodeURIComponent('50%')}`))).toEqual([email.dee]);
      expect(emails(await list('search=e_c'))).toEqual([email.snake]);
      expect(emails(await list(`search=${encodeURIComponent('\\')}`))).toEqual([]);
    });

    it('answers an empty page with a zero total when nothing matches', async () => {
      expect(await list('search=nobody-like-this')).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    });
  });

  describe('role and status', () => {
    it('role: members and invitations with that role', async () => {
      expect(emails(await list('role=admin'))).toEqual([email.bea, email.snakeX]);
      expect(emails(await list('role=owner'))).toEqual([email.alice]);
    });

    it('status: only pending invitations, or only people who joined', async () => {
      expect(emails(await list('status=invited'))).toEqual([email.snake, email.snakeX, email.quill]);
      expect(emails(await list('status=active'))).toEqual([email.alice, email.bea, email.dee]);
    });

    it('combines with search, and the total and pages count only what matches', async () => {
      expect(emails(await list('role=viewer&status=invited&search=quill'))).toEqual([email.quill]);
      const first = await list('status=invited&limit=2');
      expect(emails(first)).toEqual([email.snake, email.snakeX]);
      expect(first.meta).toEqual({ total: 3, page: 1, limit: 2, totalPages: 2 });
      const second = await list('status=invited&limit=2&page=2');
      expect(emails(second)).toEqual([email.quill]);
      expect(second.meta).toEqual({ total: 3, page: 2, limit: 2, totalPages: 2 });
    });

    it('answers the same narrowed list to an API token with the read scope', async () => {
      const { token } = await createApiToken(t, alice, { scopes: ['read'] });
      const res = await t
        .http()
        .get(`/workspaces/${alice.workspaceId}/members?role=admin&status=active`)
        .set({ Authorization: `Bearer ${token}` })
        .expect(200);
      expect(emails(res.body)).toEqual([email.bea]);
    });
  });

  describe('the name in every view of a member', () => {
    it('is in the answer to a role change, and null in an invitation’s', async () => {
      const [beaRow] = (await list('search=beatrix')).data;
      const changed = await t.http().patch(`/workspaces/${alice.workspaceId}/members/${beaRow.id}`).set(asUser(alice)).send({ role: 'admin' }).expect(200);
      expect(changed.body).toMatchObject({ email: email.bea, name: 'Beatrix Quill' });
      const [snakeRow] = (await list('search=snake_')).data;
      const invitation = await t
        .http()
        .patch(`/workspaces/${alice.workspaceId}/members/${snakeRow.id}`)
        .set(asUser(alice))
        .send({ role: 'viewer' })
        .expect(200);
      expect(invitation.body).toMatchObject({ email: email.snake, name: null });
    });
  });

  describe('isolation', () => {
    it('never shows another workspace’s members, whatever the filter', async () => {
      for (const query of ['search=quill', 'search=bob', 'role=owner', 'status=active']) {
        expect(emails(await list(query))).not.toContain(bob.email);
      }
      // Beatrix is in both workspaces, with a different role in each.
      expect((await list('search=quill', bob)).data.map((m) => [m.email, m.role])).toEqual([
        [bob.email, 'owner'],
        [email.bea, 'viewer'],
      ]);
      expect(emails(await list('status=invited', bob))).toEqual([]);
    });

    it('answers 404 for another workspace’s list, filtered or not', async () => {
      await t.http().get(`/workspaces/${bob.workspaceId}/members?search=quill`).set(asUser(alice, bob.workspaceId)).expect(404);
    });
  });

  describe('bad parameters', () => {
    it.each([
      ['search=', 'search'],
      [`search=${encodeURIComponent('   ')}`, 'search'],
      [`search=${'x'.repeat(101)}`, 'search'],
      ['search=a&search=b', 'search'],
      ['role=guest', 'role'],
      ['role=Owner', 'role'],
      ['role=', 'role'],
      ['role=admin&role=viewer', 'role'],
      ['status=pending', 'status'],
      ['status=', 'status'],
      ['page=0', 'page'],
      ['limit=101', 'limit'],
    ])('%s → 400 naming %s', async (query, parameter) => {
      const res = await t.http().get(`/workspaces/${alice.workspaceId}/members?${query}`).set(asUser(alice)).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(res.body.message)).toContain(parameter);
    });

    it('takes a search of exactly 100 characters', async () => {
      expect(await list(`search=${'x'.repeat(100)}`)).toMatchObject({ data: [], meta: { total: 0 } });
    });
  });
});
