import 'reflect-metadata';

import { Reflector } from '@nestjs/core';

import { ApiError } from '../common/errors';
import type { Principal } from '../shared/principal';
import {
  checkCredentialKind,
  checkRequirements,
  Credential,
  namedWorkspace,
  namedWorkspacePrincipal,
  routeAccess,
  tokenPrincipal,
  userPrincipal,
  workspaceTarget,
} from './authorize';
import { Access } from './decorators';
import { routeAccessWith } from './route-access.fixture';

const WS_A = 'ws_aaaaaaaaaaaaaaaaaaaaaaaa';
const WS_B = 'ws_bbbbbbbbbbbbbbbbbbbbbbbb';
const PROJ = 'proj_cccccccccccccccccccccccc';

const access = routeAccessWith;

/** Runs `fn` and returns the ApiError it threw, as status + code. */
function failure(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.getStatus(), code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('routeAccess', () => {
  class Controller {
    @Access({ credential: 'user', scopes: ['admin'], roles: ['owner'], workspaceOptional: true, workspaceWide: true })
    declared() {}
    @Access({ workspaceIn: 'body', roleRefusal: { code: 'owner_required', action: 'pay' } })
    billing() {}
    @Access({ public: true })
    open() {}
    undeclared() {}
  }
  const reflector = new Reflector();

  it('reads what the route declares', () => {
    expect(routeAccess(reflector, Controller.prototype.declared)).toEqual({
      isPublic: false,
      kind: 'user',
      scopes: ['admin'],
      roles: ['owner'],
      workspaceOptional: true,
      workspaceWide: true,
      workspaceIn: null,
      roleRefusal: null,
    });
    expect(routeAccess(reflector, Controller.prototype.billing)).toEqual(
      access({ workspaceIn: 'body', roleRefusal: { code: 'owner_required', action: 'pay' } }),
    );
    expect(routeAccess(reflector, Controller.prototype.open)).toEqual(access({ isPublic: true }));
  });

  it('denies by default: a route declaring nothing needs a credential acting in a workspace', () => {
    expect(routeAccess(reflector, Controller.prototype.undeclared)).toEqual({
      isPublic: false,
      kind: null,
      scopes: [],
      roles: [],
      workspaceOptional: false,
      workspaceWide: false,
      workspaceIn: null,
      roleRefusal: null,
    });
  });

  it('reads the handler only: access declared on a class opens none of its routes', () => {
    class Opened {
      route() {}
    }
    // @Access is typed as a method decorator; applied to a class anyway, the guard does not read it there.
    (Access({ public: true }) as unknown as ClassDecorator)(Opened);
    expect(routeAccess(reflector, Opened.prototype.route).isPublic).toBe(false);
  });
});

describe('workspaceTarget', () => {
  it('takes the path parameter first, then the header', () => {
    expect(workspaceTarget(WS_A, undefined)).toEqual({ from: 'param', workspaceId: WS_A });
    expect(workspaceTarget(WS_A, WS_A)).toEqual({ from: 'param', workspaceId: WS_A });
    expect(workspaceTarget(undefined, WS_B)).toEqual({ from: 'header', workspaceId: WS_B });
    expect(workspaceTarget(undefined, undefined)).toEqual({ from: 'none', workspaceId: null });
  });

  it('passes a malformed path id through, so it becomes a 404 like any unknown id', () => {
    expect(workspaceTarget('nope', undefined)).toEqual({ from: 'param', workspaceId: 'nope' });
  });

  it('answers 403 when header and path disagree', () => {
    expect(failure(() => workspaceTarget(WS_A, WS_B))).toMatchObject({ status: 403, code: 'workspace_mismatch' });
  });

  it('answers 400 for a malformed or repeated header', () => {
    expect(failure(() => workspaceTarget(undefined, 'acme'))).toMatchObject({ status: 400, code: 'invalid_workspace_header' });
    expect(failure(() => workspaceTarget(undefined, `${WS_A}, ${WS_B}`))).toMatchObject({ status: 400 });
    expect(failure(() => workspaceTarget(undefined, [WS_A, WS_A]))).toMatchObject({ status: 400, message: 'X-Workspace-Id must be sent once' });
  });
});

describe('checkCredentialKind', () => {
  it('lets any kind through when the route names none', () => {
    expect(() => checkCredentialKind(access(), 'user')).not.toThrow();
    expect(() => checkCredentialKind(access(), 'token')).not.toThrow();
  });

  it('answers 403 for the other kind', () => {
    expect(failure(() => checkCredentialKind(access({ kind: 'token' }), 'user'))).toMatchObject({ status: 403, code: 'wrong_credential_kind' });
    expect(failure(() => checkCredentialKind(access({ kind: 'user' }), 'token'))).toMatchObject({ status: 403, code: 'wrong_credential_kind' });
    expect(() => checkCredentialKind(access({ kind: 'token' }), 'token')).not.toThrow();
  });
});

describe('tokenPrincipal', () => {
  const token: Extract<Credential, { kind: 'token' }> = { kind: 'token', tokenId: 'tok_1', workspaceId: WS_A, scopes: ['deploy'], projectId: null };

  it("acts in the token's workspace with its scopes", () => {
    expect(tokenPrincipal(token, { from: 'none', workspaceId: null })).toEqual({
      kind: 'token',
      workspaceId: WS_A,
      scopes: ['deploy'],
      projectId: null,
      tokenId: 'tok_1',
    });
    expect(tokenPrincipal(token, { from: 'header', workspaceId: WS_A }).workspaceId).toBe(WS_A);
    expect(tokenPrincipal({ ...token, projectId: PROJ }, { from: 'param', workspaceId: WS_A }).projectId).toBe(PROJ);
  });

  it('answers 403 for a different X-Workspace-Id and 404 for a different workspace in the path', () => {
    expect(failure(() => tokenPrincipal(token, { from: 'header', workspaceId: WS_B }))).toMatchObject({ status: 403, code: 'workspace_mismatch' });
    expect(failure(() => tokenPrincipal(token, { from: 'param', workspaceId: WS_B }))).toMatchObject({
      status: 404,
      message: `Workspace ${WS_B} not found`,
    });
  });
});

describe('userPrincipal', () => {
  const user: Extract<Credential, { kind: 'user' }> = { kind: 'user', userId: 'usr_1', sessionId: 'sess' };

  it("maps the member's role to scopes", () => {
    expect(userPrincipal(user, { from: 'header', workspaceId: WS_A }, 'viewer', access())).toEqual({
      kind: 'user',
      userId: 'usr_1',
      sessionId: 'sess',
      projectId: null,
      workspaceId: WS_A,
      role: 'viewer',
      scopes: ['read'],
    });
    expect(userPrincipal(user, { from: 'param', workspaceId: WS_A }, 'admin', access()).scopes).toEqual(['deploy', 'read', 'delete', 'admin']);
  });

  it('needs a workspace unless the route makes it optional', () => {
    expect(failure(() => userPrincipal(user, { from: 'none', workspaceId: null }, null, access()))).toMatchObject({
      status: 400,
      code: 'workspace_required',
      message: expect.stringContaining('X-Workspace-Id header is required'),
    });
    expect(userPrincipal(user, { from: 'none', workspaceId: null }, null, access({ workspaceOptional: true }))).toMatchObject({
      workspaceId: null,
      scopes: [],
    });
  });

  it('answers 403 to a non-member naming the workspace in the header, 404 in the path', () => {
    expect(failure(() => userPrincipal(user, { from: 'header', workspaceId: WS_B }, null, access()))).toMatchObject({ status: 403, code: 'not_a_member' });
    expect(failure(() => userPrincipal(user, { from: 'param', workspaceId: WS_B }, null, access()))).toMatchObject({ status: 404 });
  });
});

describe('namedWorkspace', () => {
  it('reads workspaceId from the body or the query', () => {
    expect(namedWorkspace('body', { workspaceId: WS_A, tier: 'pro' }, {})).toBe(WS_A);
    expect(namedWorkspace('query', { workspaceId: WS_A }, { workspaceId: WS_B })).toBe(WS_B);
  });

  it('answers the pipe’s 400 for a missing or malformed one, before any lookup', () => {
    for (const [body, query] of [
      [{}, {}],
      [{ workspaceId: 'acme' }, {}],
      [{ workspaceId: [WS_A] }, {}],
      [undefined, {}],
      [[WS_A], {}],
    ] as const) {
      expect(failure(() => namedWorkspace('body', body, query))).toEqual({
        status: 400,
        code: 'validation_failed',
        message: 'workspaceId: must be a workspace id (ws_ followed by 24 lowercase letters or digits)',
      });
    }
  });
});

describe('namedWorkspacePrincipal', () => {
  const user: Principal = { kind: 'user', userId: 'usr_1', sessionId: 'ses_1', workspaceId: null, scopes: [], projectId: null };

  it('acts in the named workspace with the role held there', () => {
    expect(namedWorkspacePrincipal(user, WS_A, 'viewer')).toEqual({ ...user, workspaceId: WS_A, role: 'viewer', scopes: ['read'] });
  });

  it('answers 403 not_a_member to a non-member and 403 workspace_mismatch when X-Workspace-Id names another', () => {
    expect(failure(() => namedWorkspacePrincipal(user, WS_A, null))).toEqual({
      status: 403,
      code: 'not_a_member',
      message: `You are not a member of workspace ${WS_A}`,
    });
    const inB: Principal = { ...user, workspaceId: WS_B, role: 'owner', scopes: ['deploy', 'read', 'delete', 'admin'] };
    expect(failure(() => namedWorkspacePrincipal(inB, WS_A, 'owner'))).toMatchObject({ status: 403, code: 'workspace_mismatch' });
    expect(namedWorkspacePrincipal(inB, WS_B, 'owner').workspaceId).toBe(WS_B);
  });
});

describe('checkRequirements', () => {
  const viewer: Principal = { kind: 'user', userId: 'usr_1', workspaceId: WS_A, role: 'viewer', scopes: ['read'], projectId: null };
  const owner: Principal = { ...viewer, role: 'owner', scopes: ['deploy', 'read', 'delete', 'admin'] };
  const readToken: Principal = { kind: 'token', tokenId: 'tok_1', workspaceId: WS_A, scopes: ['read'], projectId: null };

  it('passes when every required scope is held', () => {
    expect(() => checkRequirements(access({ scopes: ['read'] }), viewer)).not.toThrow();
    expect(() => checkRequirements(access({ scopes: ['deploy', 'admin'] }), owner)).not.toThrow();
  });

  it('answers 403 insufficient_scope naming the missing scope', () => {
    const err = failure(() => checkRequirements(access({ scopes: ['read', 'deploy'] }), readToken));
    expect(err).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(err.message).toContain('lacks the deploy scope');
    expect(failure(() => checkRequirements(access({ scopes: ['admin'] }), viewer)).message).toContain('Your role (viewer)');
  });

  it('asks for a workspace when a user without one meets a scoped route', () => {
    const err = failure(() => checkRequirements(access({ scopes: ['read'] }), { ...viewer, workspaceId: null, role: undefined, scopes: [] }));
    expect(err).toMatchObject({ status: 403, code: 'insufficient_scope', message: expect.stringContaining('send X-Workspace-Id') });
  });

  it('requires a JWT user with one of the roles', () => {
    expect(() => checkRequirements(access({ roles: ['owner'] }), owner)).not.toThrow();
    expect(failure(() => checkRequirements(access({ roles: ['owner'] }), viewer))).toMatchObject({ status: 403, code: 'insufficient_role' });
    const allScopes: Principal = { ...readToken, scopes: ['deploy', 'read', 'delete', 'admin'] };
    expect(failure(() => checkRequirements(access({ roles: ['owner'] }), allScopes))).toMatchObject({ status: 403, code: 'insufficient_role' });
  });

  it('words a role refusal as the route asks (billing: owner_required)', () => {
    const refusal = { code: 'owner_required', action: 'manage its billing' } as const;
    expect(failure(() => checkRequirements(access({ roles: ['owner'], roleRefusal: refusal }), viewer))).toEqual({
      status: 403,
      code: 'owner_required',
      message: `Only an owner of workspace ${WS_A} can manage its billing; your role is viewer`,
    });
  });

  it('keeps project-bound tokens off workspace-wide routes', () => {
    const bound: Principal = { ...readToken, scopes: ['read', 'admin'], projectId: PROJ };
    expect(failure(() => checkRequirements(access({ workspaceWide: true }), bound))).toMatchObject({ status: 403, code: 'project_bound_token' });
    expect(() => checkRequirements(access({ workspaceWide: true }), readToken)).not.toThrow();
    expect(() => checkRequirements(access({ scopes: ['admin'] }), bound)).not.toThrow();
  });
});
