import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, registerUser } from '../helpers/identity';

/**
 * Identical list reads in flight at the same time share one query (common/fresh-read.ts).
 * Sharing must never hand a request an answer read before it was sent: a change the
 * caller saw committed shows in its next list, however many identical lists are running.
 * Through HTTP the guard's own fresh read usually outlasts a list read, so a join of the
 * read under way would rarely show here; src/common/fresh-read.spec.ts pins that rule.
 */
describe('List reads shared between concurrent requests (e2e)', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
  });
  afterAll(() => t.close());

  it('shows a committed change in the next list while identical lists are in flight', async () => {
    const created = await t.http().post('/projects').set(asUser(alice)).send({ name: 'name 0' }).expect(201);
    const list = () => t.http().get('/projects').set(asUser(alice));
    // Identical lists keep running the whole time, so a read is under way whenever the check below asks.
    let pumping = true;
    const pumps = Array.from({ length: 6 }, async () => {
      while (pumping) expect((await list()).status).toBe(200);
    });
    try {
      for (let i = 1; i <= 40; i++) {
        await t
          .http()
          .patch(`/projects/${created.body.id}`)
          .set(asUser(alice))
          .send({ name: `name ${i}` })
          .expect(200);
        const after = await list().expect(200);
        expect(after.body.data.find((p: { id: string }) => p.id === created.body.id).name).toBe(`name ${i}`);
      }
    } finally {
      pumping = false;
      await Promise.all(pumps);
    }
  });

  it('gives concurrent callers equal answers and keeps lists of different pages apart', async () => {
    const [one, two, paged] = await Promise.all([
      t.http().get('/projects?limit=5').set(asUser(alice)),
      t.http().get('/projects?limit=5').set(asUser(alice)),
      t.http().get('/projects?limit=1&page=2').set(asUser(alice)),
    ]);
    expect(one.body).toEqual(two.body);
    expect(paged.body.meta).toMatchObject({ page: 2, limit: 1 });
    expect(paged.body.data).toEqual([]);
  });
});
