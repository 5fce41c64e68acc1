import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import type { ListPage } from '../helpers/list-page';

interface Listed {
  id: string;
  name: string;
  prefix: string;
  expires_at: string | null;
}
type Page = ListPage<Listed>;

/**
 * GET /access-tokens?search=&status= — the workspace's live tokens narrowed on the server,
 * newest first, the total and pages counting only what matches; never a secret.
 */
describe('GET /access-tokens: search and status (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let bob: UserSession;
  const secrets: string[] = [];
  const prefix: Record<string, string> = {};
  let projectId: string;

  const list = async (query: string, headers: Record<string, string> = asUser(alice)): Promise<Page> =>
    (await t.http().get(`/access-tokens?${query}`).set(headers).expect(200)).body;
  const names = (page: Page) => page.data.map((tok) => tok.name);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
    projectId = (await t.http().post('/projects').set(asUser(alice)).send({ name: 'bound project' }).expect(201)).body.id;
    // Made in this order: the list shows the newest first.
    for (const name of ['Old laptop', 'CI deploys', 'ci_preview', 'ciXpreview', 'Nightly 100% backup', 'Expired CI', 'CI revoked']) {
      const made = await createApiToken(t, alice, { scopes: ['read'], name });
      secrets.push(made.token);
      prefix[name] = (made.body as { prefix: string }).prefix;
    }
    await createApiToken(t, alice, { scopes: ['read'], name: 'bound CI', projectId });
    // The visible prefix is searched too, and its random characters could hold "ci" (about one
    // run in forty): digits only here, one number per token, so only names match the words below.
    await t.dataSource.query(
      `UPDATE access_tokens t SET prefix = 'sk_live_' || lpad(n::text, 4, '0')
       FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM access_tokens) o WHERE o.id = t.id`,
    );
    const rows: { name: string; prefix: string }[] = await t.dataSource.query('SELECT name, prefix FROM access_tokens');
    for (const row of rows) prefix[row.name] = row.prefix;
    await t
      .http()
      .delete(`/access-tokens/${(await list('search=revoked')).data[0].id}`)
      .set(asUser(alice))
      .expect(204);
    // Expired tokens stay listed (they still need revoking); the database's clock says they ran out.
    await t.dataSource.query(`UPDATE access_tokens SET expires_at = now() - interval '1 minute' WHERE name IN ('Old laptop', 'Expired CI')`);
    await createApiToken(t, bob, { scopes: ['read'], name: 'CI deploys of Bob' });
  });
  afterAll(() => t?.close());

  it('keeps newest first, without revoked tokens, and never a secret', async () => {
    const page = await list('');
    expect(names(page)).toEqual(['bound CI', 'Expired CI', 'Nightly 100% backup', 'ciXpreview', 'ci_preview', 'CI deploys', 'Old laptop']);
    expect(page.meta).toEqual({ total: 7, page: 1, limit: 20, totalPages: 1 });
    const body = JSON.stringify(await list('search=sk_live_'));
    for (const secret of secrets) expect(body).not.toContain(secret);
    expect(body).not.toContain('token_hash');
  });

  describe('search', () => {
    it('matches a part of the name, case-insensitively', async () => {
      const page = await list('search=CI');
      expect(names(page)).toEqual(['bound CI', 'Expired CI', 'ciXpreview', 'ci_preview', 'CI deploys']);
      expect(page.meta.total).toBe(5);
    });

    it('matches the visible prefix, whatever its case', async () => {
      const wanted = prefix['Nightly 100% backup'];
      expect(names(await list(`search=${encodeURIComponent(wanted.toUpperCase())}`))).toEqual(['Nightly 100% backup']);
      // Every token's prefix starts so: the whole live list.
      expect((await list('search=sk_live_')).meta.total).toBe(7);
    });

    it('trims the text, and takes % and _ literally', async () => {
      expect(names(await list(`search=${encodeURIComponent('  laptop ')}`))).toEqual(['Old laptop']);
      expect(names(await list(`search=${encodeURIComponent('100%')}`))).toEqual(['Nightly 100% backup']);
      expect(names(await list('search=i_p'))).toEqual(['ci_preview']);
      expect(names(await list(`search=${encodeURIComponent('\\')}`))).toEqual([]);
    });

    it('never finds a revoked token', async () => {
      expect(await list('search=revoked')).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    });
  });

  describe('status', () => {
    it('expired: live tokens past their expiry; active: the rest', async () => {
      expect(names(await list('status=expired'))).toEqual(['Expired CI', 'Old laptop']);
      expect(names(await list('status=active'))).toEqual(['bound CI', 'Nightly 100% backup', 'ciXpreview', 'ci_preview', 'CI deploys']);
    });

    it('combines with search, and the total and pages count only what matches', async () => {
      expect(names(await list('status=expired&search=ci'))).toEqual(['Expired CI']);
      const first = await list('status=active&search=ci&limit=2');
      expect(names(first)).toEqual(['bound CI', 'ciXpreview']);
      expect(first.meta).toEqual({ total: 4, page: 1, limit: 2, totalPages: 2 });
      const second = await list('status=active&search=ci&limit=2&page=2');
      expect(names(second)).toEqual(['ci_preview', 'CI deploys']);
      expect(second.meta).toEqual({ total: 4, page: 2, limit: 2, totalPages: 2 });
    });
  });

  describe('isolation', () => {
    it('never shows another workspace’s tokens, whatever the filter', async () => {
      for (const query of ['search=ci', 'search=bob', 'status=active', 'search=sk_live_']) {
        expect(names(await list(query))).not.toContain('CI deploys of Bob');
      }
      expect(names(await list('search=ci', asUser(bob)))).toEqual(['CI deploys of Bob']);
    });

    it('gives a project-bound token its project’s tokens only', async () => {
      const reader = await createApiToken(t, alice, { scopes: ['read'], name: 'bound reader', projectId });
      expect(names(await list('search=ci', bearer(reader.token)))).toEqual(['bound CI']);
      expect(names(await list('status=expired', bearer(reader.token)))).toEqual([]);
    });
  });

  describe('bad parameters', () => {
    it.each([
      ['search=', 'search'],
      [`search=${encodeURIComponent('   ')}`, 'search'],
      [`search=${'x'.repeat(101)}`, 'search'],
      ['search=a&search=b', 'search'],
      ['status=revoked', 'status'],
      ['status=Active', 'status'],
      ['status=', 'status'],
      ['status=active&status=expired', 'status'],
    ])('%s → 400 naming %s', async (query, parameter) => {
      const res = await t.http().get(`/access-tokens?${query}`).set(asUser(alice)).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(res.body.message)).toContain(parameter);
    });

    it('takes a search of exactly 100 characters', async () => {
      expect(await list(`search=${'x'.repeat(100)}`)).toMatchObject({ data: [], meta: { total: 0 } });
    });
  });
});
