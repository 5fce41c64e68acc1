import { SiteCache } from '../../src/sites/site-cache.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

/**
 * Resolves when `app` has heard (through LISTEN) that `projectId` changed. NOTIFY is
 * asynchronous, so the test waits for the notice itself rather than racing it; what
 * it proves is that every change reaches the other instance and drops its cache.
 */
function heardBy(app: TestApp, projectId?: string): Promise<void> {
  const events = app.app.get(SiteCache).events;
  return new Promise((resolve) => {
    const listener = (id: string | undefined) => {
      if (projectId && id !== projectId) return;
      events.off('invalidated', listener);
      resolve();
    };
    events.on('invalidated', listener);
  });
}

/** Two app instances on one database: what one changes, the other serves on its next request. */
describe('Cache invalidation across instances (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let token: string;
  let session: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ sibling: a });
    session = await registerUser(a);
    token = (await createApiToken(a, session, { scopes: ['deploy'] })).token;
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('sees deploys, rollbacks, archives, gate changes and deletes made on the other instance', async () => {
    const v1 = await deploySite(a, token, 'shared', [{ path: 'index.html', content: 'one' }]);
    const id = (await a.dataSource.query(`SELECT id FROM projects WHERE slug = 'shared'`))[0].id as string;
    expect((await site(b, 'shared').get('/').expect(200)).text).toBe('one');
    expect((await site(a, 'shared').get('/').expect(200)).text).toBe('one');

    const steps: [string, () => Promise<unknown>, (res: { status: number; text: string }) => void][] = [
      ['deploy', () => deploySite(a, token, 'shared', [{ path: 'index.html', content: 'two' }]), (r) => expect([r.status, r.text]).toEqual([200, 'two'])],
      ['rollback', () => a.http().patch(`/projects/${id}/deployments/${v1.id}/promote`).set(asUser(session)).expect(200), (r) => expect(r.text).toBe('one')],
      [
        'gate on',
        () => a.http().patch(`/projects/${id}`).set(asUser(session)).send({ gate_type: 'password', password: 'instance secret' }).expect(200),
        (r) => expect(r.status).toBe(401),
      ],
      ['gate off', () => a.http().patch(`/projects/${id}`).set(asUser(session)).send({ gate_type: 'none' }).expect(200), (r) => expect(r.status).toBe(200)],
      [
        'archive',
        () => a.http().patch(`/projects/${id}/deployments/${v1.id}/archive`).set(asUser(session)).expect(200),
        (r) => expect([r.status, r.text.includes('Nothing published')]).toEqual([404, true]),
      ],
      [
        'delete',
        () => a.http().delete(`/projects/${id}`).set(asUser(session)).expect(204),
        (r) => expect([r.status, r.text.includes('Site not found')]).toEqual([404, true]),
      ],
    ];
    for (const [, change, check] of steps) {
      // B has the current state cached...
      await site(b, 'shared').get('/');
      const heard = heardBy(b, id);
      await change();
      await heard;
      // ...and answers with the new one on its next request, as A does.
      check(await site(b, 'shared').get('/'));
      check(await site(a, 'shared').get('/'));
    }
  });

  it('serves a site created on the other instance after an earlier miss', async () => {
    await site(b, 'late-comer').get('/').expect(404);
    const heard = heardBy(b);
    await deploySite(a, token, 'late-comer', [{ path: 'index.html', content: 'here now' }]);
    await heard;
    expect((await site(b, 'late-comer').get('/').expect(200)).text).toBe('here now');
  });
});
