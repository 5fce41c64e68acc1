import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';

import type { Principal, Role, Scope } from '../shared/principal';
import type { RoleRefusalWording } from './authorize';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';
export const REQUIRED_ROLES = 'auth:roles';
export const CREDENTIAL_KIND = 'auth:kind';
export const WORKSPACE_OPTIONAL = 'auth:workspace-optional';
export const WORKSPACE_WIDE = 'auth:workspace-wide';
export const WORKSPACE_IN = 'auth:workspace-in';
export const ROLE_REFUSAL = 'auth:role-refusal';

/** The route needs no credential. Everything else is denied by default. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
/** The caller needs every one of these scopes (a JWT user's role grants scopes too). */
export const Scopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);
/** The caller must be a JWT user with one of these roles in the workspace. */
export const Roles = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES, roles);
/** Only this kind of credential may call the route (e.g. `/v1/me` takes API tokens only). */
export const CredentialKind = (kind: Principal['kind']) => SetMetadata(CREDENTIAL_KIND, kind);
/** A JWT route that does not act inside one workspace (no X-Workspace-Id needed). */
export const WorkspaceOptional = () => SetMetadata(WORKSPACE_OPTIONAL, true);
/** The route acts on the whole workspace (members, settings): a project-bound token gets 403. */
export const WorkspaceWide = () => SetMetadata(WORKSPACE_WIDE, true);

/**
 * The route names its workspace in the body or the query (`workspaceId`), not in the
 * path or X-Workspace-Id (billing): the guard resolves the caller's role there, so
 * @Roles applies to it. With a JWT only.
 */
export const WorkspaceIn = (source: 'body' | 'query') => SetMetadata(WORKSPACE_IN, source);
/** How the guard words a @Roles refusal on these routes (default: 403 `insufficient_role`). */
export const RoleRefusal = (refusal: RoleRefusalWording) => SetMetadata(ROLE_REFUSAL, refusal);

/** The resolved caller of the current request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<{ principal: Principal }>().principal;
});
