import { scopesForRole } from '../../src/access/permissions';
import { AccessTokensService } from '../../src/access-tokens/access-tokens.service';
import { ApiError } from '../../src/common/errors';
import { normalizeEmail } from '../../src/shared/email';
import type { Principal, Role } from '../../src/shared/principal';
import { MembersService } from '../../src/workspaces/members.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, createApiToken, registerUser, type UserSession, verifyEmail } from '../helpers/identity';

/**
 * The member rules of MembersService, called directly on the real service and its
 * repositories against PostgreSQL (accounts are made over HTTP, as a person would).
 */
describe('MembersService (PostgreSQL)', () => {
  let t: TestApp;
  let members: MembersService;

  beforeAll(async () => {
    t = await startTestApp();
    members = t.app.get(MembersService);
  });
  afterAll(() => t?.close());

  /** The principal the bearer guard would build for `session` acting in `workspaceId` with `role`. */
  const as = (session: UserSession, role: Role, workspaceId = session.workspaceId): Principal => ({
    kind: 'user',
    workspaceId,
    userId: session.userId,
    role,
    scopes: scopesForRole(role),
  });

  async function refusal(pending: Promise<unknown>): Promise<{ status: number; code: string }> {
    try {
      await pending;
    } catch (err) {
      if (err instanceof ApiError) return { status: err.getStatus(), code: err.code };
      throw err;
    }
    throw new Error('expected the service to refuse');
  }

  async function memberOf(workspaceId: string, owner: UserSession, email: string) {
    const { data } = await members.list(as(owner, 'owner', workspaceId), workspaceId, {}, 1, 100);
    const found = data.find((m) => m.email === email);
    if (!found) throw new Error(`${email} is not a member of ${workspaceId}`);
    return found;
  }

  describe('the last owner', () => {
    it('can neither leave nor be demoted, and stays owner', async () => {
      const owner = await registerUser(t);
      const self = await memberOf(owner.workspaceId, owner, owner.email);

      expect(await refusal(members.remove(as(owner, 'owner'), owner.workspaceId, self.id))).toEqual({ status: 409, code: 'last_owner' });
      expect(await refusal(members.changeRole(as(owner, 'owner'), owner.workspaceId, self.id, 'admin'))).toEqual({ status: 409, code: 'last_owner' });
      expect((await memberOf(owner.workspaceId, owner, owner.email)).role).toBe('owner');
    });

    it('may step down once another owner is active; the other is then the last', async () => {
      const owner = await registerUser(t);
      const second = await registerUser(t);
      const secondId = await addMember(t, owner, second, 'owner');
      const first = await memberOf(owner.workspaceId, owner, owner.email);

      expect((await members.changeRole(as(owner, 'owner'), owner.workspaceId, first.id, 'admin')).role).toBe('admin');
      expect(await refusal(members.remove(as(second, 'owner', owner.workspaceId), owner.workspaceId, secondId))).toEqual({ status: 409, code: 'last_owner' });
    });

    it('an invited (not yet active) owner does not count as one', async () => {
      const owner = await registerUser(t);
      await members.invite(as(owner, 'owner'), owner.workspaceId, { email: normalizeEmail(`pending-${owner.email}`), role: 'owner' });
      const self = await memberOf(owner.workspaceId, owner, owner.email);
      expect(await refusal(members.changeRole(as(owner, 'owner'), owner.workspaceId, self.id, 'viewer'))).toEqual({ status: 409, code: 'last_owner' });
    });
  });

  describe('role changes', () => {
    it('an admin can neither make an owner nor change one', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const viewer = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      const viewerId = await addMember(t, owner, viewer, 'viewer');
      const ownerRow = await memberOf(owner.workspaceId, owner, owner.email);
      const asAdmin = as(admin, 'admin', owner.workspaceId);

      expect(await refusal(members.changeRole(asAdmin, owner.workspaceId, viewerId, 'owner'))).toEqual({ status: 403, code: 'insufficient_role' });
      expect(await refusal(members.changeRole(asAdmin, owner.workspaceId, ownerRow.id, 'viewer'))).toEqual({ status: 403, code: 'insufficient_role' });
      expect(await refusal(members.remove(asAdmin, owner.workspaceId, ownerRow.id))).toEqual({ status: 403, code: 'insufficient_role' });
      expect(await refusal(members.invite(asAdmin, owner.workspaceId, { email: normalizeEmail(`new-${admin.email}`), role: 'owner' }))).toEqual({
        status: 403,
        code: 'insufficient_role',
      });
      expect((await members.changeRole(asAdmin, owner.workspaceId, viewerId, 'admin')).role).toBe('admin');
    });

    it("revokes the member's tokens that hold more than the new role, and keeps the others", async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const adminId = await addMember(t, owner, admin, 'admin');
      const inOwners = { accessToken: admin.accessToken, workspaceId: owner.workspaceId };
      const deploy = await createApiToken(t, inOwners, { scopes: ['deploy', 'read'] });
      const read = await createApiToken(t, inOwners, { scopes: ['read'] });
      const tokens = t.app.get(AccessTokensService);

      await members.changeRole(as(owner, 'owner'), owner.workspaceId, adminId, 'viewer');

      expect(await tokens.findLive(deploy.token)).toBeNull();
      expect((await tokens.findLive(read.token))?.credential.tokenId).toBe(read.id);
    });

    it('a member who is removed loses every token they made there', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const adminId = await addMember(t, owner, admin, 'admin');
      const read = await createApiToken(t, { accessToken: admin.accessToken, workspaceId: owner.workspaceId }, { scopes: ['read'] });

      await members.remove(as(owner, 'owner'), owner.workspaceId, adminId);

      expect(await t.app.get(AccessTokensService).findLive(read.token)).toBeNull();
    });
  });

  describe('invitations', () => {
    it('one per address (in any letter case); taken only by the verified person it was sent to, once', async () => {
      const owner = await registerUser(t);
      const invitee = await registerUser(t);
      const stranger = await registerUser(t);
      await verifyEmail(t, stranger);

      const invited = await members.invite(as(owner, 'owner'), owner.workspaceId, { email: normalizeEmail(invitee.email.toUpperCase()), role: 'viewer' });
      expect(invited).toMatchObject({ email: normalizeEmail(invitee.email), role: 'viewer', status: 'invited' });
      expect(await refusal(members.invite(as(owner, 'owner'), owner.workspaceId, { email: normalizeEmail(invitee.email), role: 'admin' }))).toEqual({
        status: 409,
        code: 'already_member',
      });

      // Not verified yet: the invitation is neither listed nor taken.
      expect((await members.invitations(invitee.userId, 1, 20)).data).toEqual([]);
      expect(await refusal(members.accept(invitee.userId, invited.id))).toEqual({ status: 403, code: 'email_not_verified' });

      // Someone else's invitation is as unknown as a made-up id.
      expect(await refusal(members.accept(stranger.userId, invited.id))).toEqual({ status: 404, code: 'not_found' });

      await verifyEmail(t, invitee);
      expect((await members.invitations(invitee.userId, 1, 20)).data.map((i) => i.id)).toEqual([invited.id]);
      expect(await members.accept(invitee.userId, invited.id)).toMatchObject({ id: invited.id, workspaceId: owner.workspaceId, role: 'viewer' });
      expect(await refusal(members.accept(invitee.userId, invited.id))).toEqual({ status: 404, code: 'not_found' });
      expect(await members.activeRole(owner.workspaceId, invitee.userId)).toBe('viewer');
      expect(await refusal(members.invite(as(owner, 'owner'), owner.workspaceId, { email: normalizeEmail(invitee.email), role: 'viewer' }))).toEqual({
        status: 409,
        code: 'already_member',
      });
    });

    it('no service call crosses into a workspace other than the one the caller acts in', async () => {
      const owner = await registerUser(t);
      const other = await registerUser(t);
      const otherSelf = await memberOf(other.workspaceId, other, other.email);
      expect(await refusal(members.remove(as(owner, 'owner'), other.workspaceId, otherSelf.id))).toEqual({ status: 404, code: 'not_found' });
      expect(await refusal(members.changeRole(as(owner, 'owner'), owner.workspaceId, otherSelf.id, 'viewer'))).toEqual({ status: 404, code: 'not_found' });
    });
  });
});
