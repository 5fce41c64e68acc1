import type { Reflector } from '@nestjs/core';

import { type ApiError, badRequest, notFound } from '../common/errors';
import { isId } from '../common/ids';
import { assertStorableText } from '../common/validation';
import type { Principal, Role, Scope } from '../shared/principal';
import { authError, type AuthErrorCode } from './auth.errors';
import { DEFAULT_ACCESS, ROUTE_ACCESS } from './decorators';
import { missingScopes, scopesForRole } from './permissions';

/**
 * The pure half of the bearer guard: given who the credential says the caller is
 * and what the route declares, decide the principal or the error. The guard does
 * the I/O (passport, the membership lookup) around these functions.
 */

/** What a route declares with @Access or @Endpoint (src/access/decorators.ts). */
export interface RouteAccess {
  isPublic: boolean;
  kind: Principal['kind'] | null;
  scopes: Scope[];
  roles: Role[];
  workspaceOptional: boolean;
  workspaceWide: boolean;
  /** Where the route names its workspace besides the path and the header (`workspaceIn`), or null. */
  workspaceIn: 'body' | 'query' | null;
  /** How a `roles` refusal is worded (`roleRefusal`), or null for the default. */
  roleRefusal: RoleRefusalWording | null;
}

/** A route's own wording of a `roles` refusal: its code and what only those roles may do. */
export interface RoleRefusalWording {
  code: Extract<AuthErrorCode, 'insufficient_role' | 'owner_required'>;
  /** Completes "Only an owner of workspace ws_… can …". */
  action: string;
}

/**
 * The access a route declares on its handler, or the default (a credential in a
 * workspace). Only the handler is read: a route's access is written on the route.
 */
export function routeAccess(reflector: Reflector, handler: Function): RouteAccess {
  return reflector.get<RouteAccess | undefined>(ROUTE_ACCESS, handler) ?? DEFAULT_ACCESS;
}

/** A verified credential, before the route's workspace is known. */
export type Credential =
  { kind: 'token'; tokenId: string; workspaceId: string; scopes: Scope[]; projectId: string | null } | { kind: 'user'; userId: string; sessionId: string };

/** The workspace a request names: its `:workspaceId` path parameter, else its X-Workspace-Id header. */
export type WorkspaceTarget = { from: 'param' | 'header'; workspaceId: string } | { from: 'none'; workspaceId: null };

export const WORKSPACE_HEADER = 'x-workspace-id';

export function workspaceTarget(param: string | undefined, header: string | string[] | undefined): WorkspaceTarget {
  if (Array.isArray(header)) throw authError('invalid_workspace_header', 'X-Workspace-Id must be sent once');
  if (header !== undefined && !isId('ws', header)) {
    throw authError('invalid_workspace_header', 'X-Workspace-Id must be a workspace id (ws_ followed by 24 lowercase letters or digits)');
  }
  if (param !== undefined) {
    // The guard reads this before any pipe runs, so the pipes' check is made here too.
    assertStorableText(param, 'workspaceId');
    if (header !== undefined && header !== param) {
      throw authError('workspace_mismatch', `X-Workspace-Id (${header}) names a different workspace than the path (${param})`);
    }
    return { from: 'param', workspaceId: param };
  }
  if (header !== undefined) return { from: 'header', workspaceId: header };
  return { from: 'none', workspaceId: null };
}

const WORKSPACE_ID = /^ws_[0-9a-z]{24}$/;
const NAMED_WORKSPACE_PROBLEM = 'workspaceId: must be a workspace id (ws_ followed by 24 lowercase letters or digits)';

/**
 * The `workspaceId` a `workspaceIn` route names in its body or query. The guard runs
 * before the validation pipe, so it checks the field itself, with the pipe's words;
 * a missing or malformed one is the same 400 the pipe would give.
 */
export function namedWorkspace(source: 'body' | 'query', body: unknown, query: unknown): string {
  const from = source === 'body' ? body : query;
  const value = typeof from === 'object' && from !== null && !Array.isArray(from) ? (from as Record<string, unknown>).workspaceId : undefined;
  if (typeof value !== 'string' || !WORKSPACE_ID.test(value))
    throw badRequest(NAMED_WORKSPACE_PROBLEM, 'validation_failed', { errors: [NAMED_WORKSPACE_PROBLEM] });
  return value;
}

/**
 * The principal of a `workspaceIn` route: the workspace named in the request, with the
 * caller's role there (`role` is null when they have none). It must agree with an
 * X-Workspace-Id (already resolved into `principal`); not being a member is 403, as
 * for a header, since the name comes from the body, not from a path.
 */
export function namedWorkspacePrincipal(principal: Principal, named: string, role: Role | null): Principal {
  if (principal.workspaceId && principal.workspaceId !== named) {
    throw authError('workspace_mismatch', `X-Workspace-Id is ${principal.workspaceId} but the request names workspace ${named}; send one workspace`);
  }
  if (principal.kind === 'token') return principal;
  if (role === null) throw authError('not_a_member', `You are not a member of workspace ${named}`);
  return { ...principal, workspaceId: named, role, scopes: scopesForRole(role) };
}

/** The 403 of a caller whose role is not one of `roles`, worded as the route asks. */
export function roleRefused(roles: readonly Role[], workspaceId: string, role: Role | undefined, wording: RoleRefusalWording | null): ApiError {
  const names = roles.join(' or ');
  if (wording) return authError(wording.code, `Only an ${names} of workspace ${workspaceId} can ${wording.action}; your role is ${role}`);
  return authError('insufficient_role', `This route needs the ${names} role in workspace ${workspaceId} (you are ${role})`);
}

/** Runs first, so a JWT on a token-only route hears about the credential, not about a missing header. */
export function checkCredentialKind(access: RouteAccess, kind: Principal['kind']): void {
  if (access.kind === null || access.kind === kind) return;
  throw authError(
    'wrong_credential_kind',
    access.kind === 'token' ? 'This route takes an API token (sk_live_...), not a dashboard JWT' : 'This route takes a dashboard JWT, not an API token',
  );
}

/** An API token acts in its own workspace only. */
export function tokenPrincipal(credential: Extract<Credential, { kind: 'token' }>, target: WorkspaceTarget): Principal {
  if (target.from === 'param' && target.workspaceId !== credential.workspaceId) {
    // Another workspace's id is a 404 like any other foreign id: a 403 would confirm it exists.
    throw notFound('Workspace', target.workspaceId);
  }
  if (target.from === 'header' && target.workspaceId !== credential.workspaceId) {
    throw authError('workspace_mismatch', "X-Workspace-Id names a different workspace than the API token's own; a token acts in its workspace only");
  }
  return {
    kind: 'token',
    workspaceId: credential.workspaceId,
    scopes: [...credential.scopes],
    projectId: credential.projectId,
    tokenId: credential.tokenId,
  };
}

/**
 * A JWT user acts in the workspace the request names, with the rights of their
 * active membership there (`role` is null when they have none).
 */
export function userPrincipal(credential: Extract<Credential, { kind: 'user' }>, target: WorkspaceTarget, role: Role | null, access: RouteAccess): Principal {
  const base = { kind: 'user' as const, userId: credential.userId, sessionId: credential.sessionId, projectId: null };
  if (target.from === 'none') {
    if (!access.workspaceOptional) {
      throw authError('workspace_required', 'X-Workspace-Id header is required with a dashboard JWT on this route');
    }
    return { ...base, workspaceId: null, scopes: [] };
  }
  if (role === null) {
    if (target.from === 'param') throw notFound('Workspace', target.workspaceId);
    throw authError('not_a_member', `You are not a member of workspace ${target.workspaceId}`);
  }
  return { ...base, workspaceId: target.workspaceId, role, scopes: scopesForRole(role) };
}

/** The route's scope, role and project-binding requirements against the resolved principal. */
export function checkRequirements(access: RouteAccess, principal: Principal): void {
  if (access.workspaceWide && principal.projectId) {
    throw authError('project_bound_token', `This route acts on the whole workspace; a token bound to project ${principal.projectId} cannot call it`);
  }
  const missing = missingScopes(access.scopes, principal.scopes);
  if (missing.length > 0) {
    const needs = `the ${missing.join(', ')} scope${missing.length > 1 ? 's' : ''}`;
    let message: string;
    if (principal.kind === 'token') {
      message = `This API token lacks ${needs} this route requires (it has: ${principal.scopes.join(', ') || 'none'})`;
    } else if (principal.workspaceId === null) {
      message = `This route needs ${needs} in a workspace: send X-Workspace-Id`;
    } else {
      message = `Your role (${principal.role}) in workspace ${principal.workspaceId} does not grant ${needs} this route requires`;
    }
    throw authError('insufficient_scope', message, { missingScopes: missing });
  }
  if (access.roles.length > 0) {
    const roles = access.roles.join(' or ');
    if (principal.kind !== 'user') {
      throw authError('insufficient_role', `This route takes a dashboard JWT of a workspace ${roles}; API tokens cannot call it`);
    }
    if (principal.workspaceId === null) {
      throw authError('insufficient_role', `This route needs the ${roles} role in a workspace: send X-Workspace-Id`);
    }
    if (!principal.role || !access.roles.includes(principal.role)) throw roleRefused(access.roles, principal.workspaceId, principal.role, access.roleRefusal);
  }
}
