import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, registerUser } from '../helpers/identity';
import { changeUnderLock, someoneWaits } from '../helpers/row-lock';

/**
 * A member change and a request of the member it changes, at once: the request was let in
 * by the guard (which read the role before the change committed) and then waits for the
 * workspace's lock, which the change holds. Once it has the lock, it must act with the role
 * the person has now, not the one the guard saw.
 */
describe('Member changes racing the changed member’s own requests (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('an owner demoted while their role change waited for the lock changes no role', async () => {
    const first = await registerUser(t);
    const second = await registerUser(t);
    const viewer = await registerUser(t);
    await addMember(t, first, second, 'owner');
    const viewerMemberId = await addMember(t, first, viewer, 'viewer');
    const demotion = await changeUnderLock(t, 'workspaces', first.workspaceId, (c) =>
      c
        .query(`UPDATE workspace_members SET role = 'viewer' WHERE workspace_id = $1 AND user_id = $2`, [first.workspaceId, second.userId])
        .then(() => undefined),
    );
    const promote = t
      .http()
      .patch(`/workspaces/${first.workspaceId}/members/${viewerMemberId}`)
      .set(asUser(second, first.workspaceId))
      .send({ role: 'owner' })
      .then((res) => res);
    await someoneWaits(t);
    await demotion.commit();
    const res = await promote;
    expect(res.status).toBe(403);
    const [row] = await t.dataSource.query('SELECT role FROM workspace_members WHERE id = $1', [viewerMemberId]);
    expect(row.role).toBe('viewer');
  });

  it('a member removed while their token request waited for the lock gets no token', async () => {
    const owner = await registerUser(t);
    const admin = await registerUser(t);
    await addMember(t, owner, admin, 'admin');
    const removal = await changeUnderLock(t, 'workspaces', owner.workspaceId, (c) =>
      c.query('DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2', [owner.workspaceId, admin.userId]).then(() => undefined),
    );
    const create = t
      .http()
      .post('/access-tokens')
      .set(asUser(admin, owner.workspaceId))
      .send({ name: 'kept after leaving?', scopes: ['admin'] })
      .then((res) => res);
    await someoneWaits(t);
    await removal.commit();
    const res = await create;
    expect(res.status).toBe(401);
    expect(await t.dataSource.query('SELECT id FROM access_tokens WHERE workspace_id = $1 AND created_by = $2', [owner.workspaceId, admin.userId])).toEqual([]);
  });
});
