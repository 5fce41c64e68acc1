import { ApiError } from '../common/errors';
import type { Principal } from '../shared/principal';
import { assertKeepsAnOwner, assertMayGrantRole, assertMayManageMember, isSelf } from './member-rules';

const WS = 'ws_aaaaaaaaaaaaaaaaaaaaaaaa';
const owner: Principal = { kind: 'user', userId: 'usr_owner', workspaceId: WS, role: 'owner', scopes: ['deploy', 'read', 'delete', 'admin'] };
const admin: Principal = { ...owner, userId: 'usr_admin', role: 'admin' };
const adminToken: Principal = { kind: 'token', tokenId: 'tok_1', workspaceId: WS, scopes: ['deploy', 'read', 'delete', 'admin'], projectId: null };

const statusOf = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? `${err.getStatus()} ${err.code}` : 'other';
  }
};

describe('member rules', () => {
  const ownerMember = { role: 'owner' as const, status: 'active' as const, userId: 'usr_owner' };
  const viewerMember = { role: 'viewer' as const, status: 'active' as const, userId: 'usr_viewer' };

  it('recognise the caller among the members', () => {
    expect(isSelf(owner, ownerMember)).toBe(true);
    expect(isSelf(admin, ownerMember)).toBe(false);
    expect(isSelf(adminToken, ownerMember)).toBe(false);
    expect(isSelf(owner, { ...ownerMember, userId: null })).toBe(false);
  });

  it('let only a signed-in owner grant the owner role', () => {
    expect(statusOf(() => assertMayGrantRole(owner, 'owner'))).toBe('ok');
    expect(statusOf(() => assertMayGrantRole(admin, 'owner'))).toBe('403 insufficient_role');
    expect(statusOf(() => assertMayGrantRole(adminToken, 'owner'))).toBe('403 insufficient_role');
    expect(statusOf(() => assertMayGrantRole(admin, 'admin'))).toBe('ok');
    expect(statusOf(() => assertMayGrantRole(adminToken, 'viewer'))).toBe('ok');
  });

  it('let only a signed-in owner change or remove an owner', () => {
    expect(statusOf(() => assertMayManageMember(owner, ownerMember))).toBe('ok');
    expect(statusOf(() => assertMayManageMember(admin, ownerMember))).toBe('403 insufficient_role');
    expect(statusOf(() => assertMayManageMember(adminToken, { ...ownerMember, status: 'invited' }))).toBe('403 insufficient_role');
    expect(statusOf(() => assertMayManageMember(admin, viewerMember))).toBe('ok');
  });

  it('keep at least one active owner', () => {
    expect(statusOf(() => assertKeepsAnOwner(ownerMember, null, 1))).toBe('409 last_owner');
    expect(statusOf(() => assertKeepsAnOwner(ownerMember, 'admin', 1))).toBe('409 last_owner');
    expect(statusOf(() => assertKeepsAnOwner(ownerMember, 'owner', 1))).toBe('ok');
    expect(statusOf(() => assertKeepsAnOwner(ownerMember, null, 2))).toBe('ok');
    expect(statusOf(() => assertKeepsAnOwner({ ...ownerMember, status: 'invited' }, null, 1))).toBe('ok');
    expect(statusOf(() => assertKeepsAnOwner(viewerMember, null, 1))).toBe('ok');
  });
});
