import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';

import {
  checkCredentialKind,
  checkRequirements,
  namedWorkspace,
  namedWorkspacePrincipal,
  routeAccess,
  tokenPrincipal,
  userPrincipal,
  WORKSPACE_HEADER,
  workspaceTarget,
} from './authorize';
import { Authenticated, BearerStrategy } from './bearer.strategy';
import { CredentialCache } from './credential-cache.service';
import { invalidCredentials } from './credentials';
import type { Principal } from './principal';

/**
 * The global guard. Default deny: every route needs a credential unless marked
 * @Public(). It resolves the bearer credential (API token or JWT), the workspace
 * the request acts in (path, X-Workspace-Id, or the body or query of a @WorkspaceIn
 * route), and the caller's scopes, then applies the route's @CredentialKind, @Scopes,
 * @Roles and @WorkspaceWide; the result is `req.principal`.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly strategy: BearerStrategy,
    private readonly cache: CredentialCache,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = routeAccess(this.reflector, context.getHandler(), context.getClass());
    if (access.isPublic) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { principal?: Principal }>();

    const { credential, epoch } = await this.authenticate(req, http.getResponse<Response>());
    checkCredentialKind(access, credential.kind);
    const param = req.params?.workspaceId as string | undefined;
    const target = workspaceTarget(param, req.headers[WORKSPACE_HEADER]);
    let principal: Principal;
    if (credential.kind === 'token') {
      principal = tokenPrincipal(credential, target);
    } else {
      const role = target.workspaceId === null ? null : await this.cache.activeRole(target.workspaceId, credential.userId, epoch);
      principal = userPrincipal(credential, target, role, access);
    }
    if (access.workspaceIn) {
      const named = namedWorkspace(access.workspaceIn, req.body, req.query);
      const role = credential.kind === 'user' ? await this.cache.activeRole(named, credential.userId, epoch) : null;
      principal = namedWorkspacePrincipal(principal, named, role);
    }
    checkRequirements(access, principal);
    req.principal = principal;
    return true;
  }

  private authenticate(req: Request, res: Response): Promise<Authenticated> {
    return new Promise((resolve, reject) => {
      // A fresh object per request: passport attaches this request's callbacks to it.
      const strategy = Object.create(this.strategy) as BearerStrategy;
      const middleware = this.strategy
        .getPassportInstance()
        .authenticate(strategy, { session: false }, (err: unknown, authenticated: Authenticated | false) => {
          if (err) reject(err);
          else if (!authenticated) reject(invalidCredentials());
          else resolve(authenticated);
        });
      middleware(req, res, (err?: unknown) => reject(err ?? invalidCredentials()));
    });
  }
}
