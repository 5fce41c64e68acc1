import { LeadsService } from '../../src/leads/leads.service';
import type { Principal } from '../../src/shared/principal';
import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject } from '../helpers/email-gate';
import { registerUser, type UserSession } from '../helpers/identity';

/**
 * LeadsService's rules on the real LeadsRepository and PostgreSQL, called directly (not
 * over HTTP): one lead per email and project, a capture for a deleted project, and an
 * erasure that keeps the workspace's domain dictionary exactly as large as its leads need.
 */
describe('LeadsService against PostgreSQL', () => {
  let t: TestApp;
  let owner: UserSession;
  let principal: Principal;
  let one: string;
  let two: string;
  let leads: LeadsService;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t);
    principal = { kind: 'user', workspaceId: owner.workspaceId, scopes: ['deploy', 'read', 'delete', 'admin'], userId: owner.userId, role: 'owner' };
    one = await emailGatedProject(t, owner, 'svc-leads-one');
    two = await emailGatedProject(t, owner, 'svc-leads-two');
    leads = t.app.get(LeadsService);
  });

  afterAll(() => t?.close());

  const dictionary = async () =>
    ((await t.dataSource.query('SELECT count(*)::int AS n FROM lead_domains WHERE workspace_id = $1', [owner.workspaceId])) as { n: number }[])[0].n;

  it('stores an email once per project: a second capture keeps the first, another project has its own', async () => {
    const captured = await leads.capture(one, 'ada@example.org');
    expect(captured).toEqual({ outcome: 'captured', leadId: expect.stringMatching(/^lead_/) });
    const first = await leads.list({ workspaceId: owner.workspaceId, projectId: one }, { page: 1, limit: 10 });
    expect(first.data.map((l) => l.id)).toEqual([(captured as { leadId: string }).leadId]);
    // A repeat visitor is the same lead: its id, not a new one (the gate cookie carries it).
    expect(await leads.capture(one, 'ada@example.org')).toEqual({ outcome: 'known', leadId: first.data[0].id });
    expect(await leads.capture(two, 'ada@example.org')).toMatchObject({ outcome: 'captured' });

    const again = await leads.list({ workspaceId: owner.workspaceId, projectId: one }, { page: 1, limit: 10 });
    expect(again.meta.total).toBe(1);
    expect(again.data).toEqual(first.data);
    expect((await leads.list({ workspaceId: owner.workspaceId }, { page: 1, limit: 10 })).meta.total).toBe(2);
    // One domain, one dictionary entry, however many leads have it.
    expect(await dictionary()).toBe(1);
  });

  it("says 'gone' for a project that does not exist, and stores nothing", async () => {
    expect(await leads.capture('proj_doesnotexist000000000000', 'bob@example.org')).toBe('gone');
    expect((await leads.list({ workspaceId: owner.workspaceId }, { page: 1, limit: 10 })).meta.total).toBe(2);
  });

  it('erasing drops the domain from the dictionary only with its last lead', async () => {
    const inOne = (await leads.list({ workspaceId: owner.workspaceId, projectId: one }, { page: 1, limit: 10 })).data;
    const inTwo = (await leads.list({ workspaceId: owner.workspaceId, projectId: two }, { page: 1, limit: 10 })).data;

    await leads.erase(principal, one, inOne[0].id);
    expect((await leads.list({ workspaceId: owner.workspaceId, projectId: one }, { page: 1, limit: 10 })).meta.total).toBe(0);
    expect(await dictionary()).toBe(1); // project two's lead still has example.org
    expect((await leads.list({ workspaceId: owner.workspaceId }, { page: 1, limit: 10, search: 'example' })).data.map((l) => l.id)).toEqual([inTwo[0].id]);

    await leads.erase(principal, two, inTwo[0].id);
    expect(await dictionary()).toBe(0);
    expect((await leads.list({ workspaceId: owner.workspaceId }, { page: 1, limit: 10 })).meta.total).toBe(0);
  });

  it('erasing a lead of another project is a 404 and erases nothing', async () => {
    expect(await leads.capture(one, 'cy@example.net')).toMatchObject({ outcome: 'captured' });
    const [lead] = (await leads.list({ workspaceId: owner.workspaceId, projectId: one }, { page: 1, limit: 10 })).data;
    await expect(leads.erase(principal, two, lead.id)).rejects.toMatchObject({ status: 404 });
    expect((await leads.list({ workspaceId: owner.workspaceId, projectId: one }, { page: 1, limit: 10 })).meta.total).toBe(1);
  });
});
