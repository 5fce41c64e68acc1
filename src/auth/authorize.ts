import { HttpStatus } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ApiError, badRequest, forbidden, notFound } from '../common/errors';
import { isId } from '../common/ids';
import { assertStorableText } from '../common/validation';
import {
  CREDENTIAL_KIND,
  IS_PUBLIC,
  REQUIRED_ROLES,
  REQUIRED_SCOPES,
  WORKSPACE_OPTIONAL,
  WORKSPACE_WIDE,
} from './decorators';
import { missingScopes, scopesForRole } from './permissions';
import type { Principal, Role, Scope } from './principal';

/**
 * The pure half of the bearer guard: given who the credential says the caller is
 * and what the route declares, decide the principal or the error. The guard does
 * the I/O (passport, the membership lookup) around these functions.
 */

/** What a route declares with the auth decorators (method-level wins over class-level). */
export interface RouteAccess {
  isPublic: boolean;
  kind: Principal['kind'] | null;
  scopes: Scope[];
  roles: Role[];
  workspaceOptional: boolean;
  workspaceWide: boolean;
}

export function routeAccess(reflector: Reflector, handler: Function, controller: Function): RouteAccess {
  const get = <T>(key: string) => reflector.getAllAndOverride<T | undefined>(key, [handler, controller]);
  return {
    isPublic: get<boolean>(IS_PUBLIC) === true,
    kind: get<Principal['kind']>(CREDENTIAL_KIND) ?? null,
    scopes: get<Scope[]>(REQUIRED_SCOPES) ?? [],
    roles: get<Role[]>(REQUIRED_ROLES) ?? [],
    workspaceOptional: get<boolean>(WORKSPACE_OPTIONAL) === true,
    workspaceWide: get<boolean>(WORKSPACE_WIDE) === true,
  };
}

/** A verified credential, before the route's workspace is known. */
export type Credential =
  | { kind: 'token'; tokenId: string; workspaceId: string; scopes: Scope[]; projectId: string | null }
  | { kind: 'user'; userId: string; sessionId: string };

/** The workspace a request names: its `:workspaceId` path parameter, else its X-Workspace-Id header. */
export type WorkspaceTarget =
  | { from: 'param' | 'header'; workspaceId: string }
  | { from: 'none'; workspaceId: null };

export const WORKSPACE_HEADER = 'x-workspace-id';

export function workspaceTarget(param: string | undefined, header: string | string[] | undefined): WorkspaceTarget {
  if (Array.isArray(header)) throw badRequest('X-Workspace-Id must be sent once', 'invalid_workspace_header');
  if (header !== undefined && !isId('ws', header)) {
    throw badRequest('X-Workspace-Id must be a workspace id (ws_ followed by 24 lowercase letters or digits)', 'invalid_workspace_header');
  }
  if (param !== undefined) {
    // The guard reads this before any pipe runs, so the pipes' check is made here too.
    assertStorableText(param, 'workspaceId');
    if (header !== undefined && header !== param) {
      throw forbidden(`X-Workspace-Id (${header}) names a different workspace than the path (${param})`, 'workspace_mismatch');
    }
    return { from: 'param', workspaceId: param };
  }
  if (header !== undefined) return { from: 'header', workspaceId: header };
  return { from: 'none', workspaceId: null };
}

/** Runs first, so a JWT on a token-only route hears about the credential, not about a missing header. */
export function checkCredentialKind(access: RouteAccess, kind: Principal['kind']): void {
  if (access.kind === null || access.kind === kind) return;
  throw forbidden(
    access.kind === 'token'
      ? 'This route takes an API token (sk_live_...), not a dashboard JWT'
      : 'This route takes a dashboard JWT, not an API token',
    'wrong_credential_kind',
  );
}

/** An API token acts in its own workspace only. */
export function tokenPrincipal(credential: Extract<Credential, { kind: 'token' }>, target: WorkspaceTarget): Principal {
  if (target.from === 'param' && target.workspaceId !== credential.workspaceId) {
    // Another workspace's id is a 404 like any other foreign id: a 403 would confirm it exists.
    throw notFound('Workspace', target.workspaceId);
  }
  if (target.from === 'header' && target.workspaceId !== credential.workspaceId) {
    throw forbidden("X-Workspace-Id names a different workspace than the API token's own; a token acts in its workspace only", 'workspace_mismatch');
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
export function userPrincipal(
  credential: Extract<Credential, { kind: 'user' }>,
  target: WorkspaceTarget,
  role: Role | null,
  access: RouteAccess,
): Principal {
  const base = { kind: 'user' as const, userId: credential.userId, sessionId: credential.sessionId, projectId: null };
  if (target.from === 'none') {
    if (!access.workspaceOptional) {
      throw badRequest('X-Workspace-Id header is required with a dashboard JWT on this route', 'workspace_required');
    }
    return { ...base, workspaceId: null, scopes: [] };
  }
  if (role === null) {
    if (target.from === 'param') throw notFound('Workspace', target.workspaceId);
    throw forbidden(`You are not a member of workspace ${target.workspaceId}`, 'not_a_member');
  }
  return { ...base, workspaceId: target.workspaceId, role, scopes: scopesForRole(role) };
}

/** The route's scope, role and project-binding requirements against the resolved principal. */
export function checkRequirements(access: RouteAccess, principal: Principal): void {
  if (access.workspaceWide && principal.projectId) {
    throw forbidden(
      `This route acts on the whole workspace; a token bound to project ${principal.projectId} cannot call it`,
      'project_bound_token',
    );
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
    throw new ApiError(HttpStatus.FORBIDDEN, 'insufficient_scope', message, { missingScopes: missing });
  }
  if (access.roles.length > 0) {
    const roles = access.roles.join(' or ');
    if (principal.kind !== 'user') {
      throw forbidden(`This route takes a dashboard JWT of a workspace ${roles}; API tokens cannot call it`, 'insufficient_role');
    }
    if (principal.workspaceId === null) {
      throw forbidden(`This route needs the ${roles} role in a workspace: send X-Workspace-Id`, 'insufficient_role');
    }
    if (!principal.role || !access.roles.includes(principal.role)) {
      throw forbidden(`This route needs the ${roles} role in workspace ${principal.workspaceId} (you are ${principal.role})`, 'insufficient_role');
    }
  }
}
