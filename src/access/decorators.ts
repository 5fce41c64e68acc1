import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';

import type { Principal, Role, Scope } from '../shared/principal';
import type { RoleRefusalWording, RouteAccess } from './authorize';

export const ROUTE_ACCESS = 'auth:access';

/**
 * Who may call a route, declared once on the route (@Access, or @Endpoint which adds
 * its documentation). A route declaring nothing still needs a valid credential and a
 * workspace: the guard denies by default, only `{ public: true }` opens a route.
 */
export type AccessDeclaration =
  | { public: true }
  | {
      public?: never;
      /** Only this kind of credential may call the route (e.g. `/v1/me` takes API tokens only); any kind by default. */
      credential?: Principal['kind'];
      /** The caller needs every one of these scopes (a JWT user's role grants scopes too). */
      scopes?: Scope[];
      /** The caller must be a JWT user with one of these roles in the workspace. */
      roles?: Role[];
      /** A JWT route that does not act inside one workspace (no X-Workspace-Id needed). */
      workspaceOptional?: true;
      /** The route acts on the whole workspace (members, settings): a project-bound token gets 403. */
      workspaceWide?: true;
      /**
       * The route names its workspace in the body or the query (`workspaceId`), not in the
       * path or X-Workspace-Id (billing): the guard resolves the caller's role there, so
       * `roles` applies to it. With a JWT only.
       */
      workspaceIn?: 'body' | 'query';
      /** How the guard words a `roles` refusal on this route (default: 403 `insufficient_role`). */
      roleRefusal?: RoleRefusalWording;
    };

/** What the guard reads for a route declaring nothing: any valid credential, in a workspace, no scope. */
export const DEFAULT_ACCESS: Readonly<RouteAccess> = Object.freeze({
  isPublic: false,
  kind: null,
  scopes: [],
  roles: [],
  workspaceOptional: false,
  workspaceWide: false,
  workspaceIn: null,
  roleRefusal: null,
});

/** A declaration in the guard's terms. */
export function declaredAccess(declaration: AccessDeclaration): RouteAccess {
  if (declaration.public) return { ...DEFAULT_ACCESS, isPublic: true };
  return {
    isPublic: false,
    kind: declaration.credential ?? null,
    scopes: declaration.scopes ?? [],
    roles: declaration.roles ?? [],
    workspaceOptional: declaration.workspaceOptional === true,
    workspaceWide: declaration.workspaceWide === true,
    workspaceIn: declaration.workspaceIn ?? null,
    roleRefusal: declaration.roleRefusal ?? null,
  };
}

/**
 * The route's access, for routes outside the API document (internal callers, metrics);
 * every documented route declares it through @Endpoint (src/openapi/endpoint.ts).
 */
export const Access = (declaration: AccessDeclaration): MethodDecorator => SetMetadata(ROUTE_ACCESS, declaredAccess(declaration));

/** The resolved caller of the current request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<{ principal: Principal }>().principal;
});
