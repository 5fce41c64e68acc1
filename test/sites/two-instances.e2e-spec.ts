import type { Socket } from 'node:net';

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

  it('does not drop, when its own notice comes back, what it loaded after its own commit; other notices still drop it', async () => {
    const cache = a.app.get(SiteCache);
    const notice = (from: TestApp, payload: string) => from.dataSource.query(`SELECT pg_notify('statichost_site_changed', $1)`, [payload]);
    // A's listener reads nothing until resumed: its notice comes back late, as on a busy machine.
    const listenerSocket = (cache as unknown as { listener: { connection: { stream: Socket } } }).listener.connection.stream;
    listenerSocket.pause();
    try {
      await deploySite(a, token, 'own-echo', [{ path: 'index.html', content: 'v1' }]);
      // The commit dropped the project on A at once; this load reads the deploy and is current.
      expect((await site(a, 'own-echo').get('/').expect(200)).text).toBe('v1');
      expect(cache.isCached('s', 'own-echo')).toBe(true);
    } finally {
      listenerSocket.resume();
    }
    // Notices arrive in commit order: once A hears this one, the deploy's has come back too.
    const marker = heardBy(a, 'proj_marker_after_deploy');
    await notice(b, 'proj_marker_after_deploy');
    await marker;
    // Kept: in an outage it is what A serves (test/database/embedded-postgres.e2e-spec.ts).
    expect(cache.isCached('s', 'own-echo')).toBe(true);

    // A notice from A's own pool that no commit of A's announced is still obeyed.
    const id = (await a.dataSource.query(`SELECT id FROM projects WHERE slug = 'own-echo'`))[0].id as string;
    const heard = heardBy(a, id);
    await notice(a, id);
    await heard;
    expect(cache.isCached('s', 'own-echo')).toBe(false);
  });
});
