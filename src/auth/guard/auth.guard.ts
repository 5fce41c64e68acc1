import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import {
  checkCredentialKind,
  checkRequirements,
  namedWorkspace,
  namedWorkspacePrincipal,
  type RouteAccess,
  routeAccess,
  tokenPrincipal,
  userPrincipal,
  WORKSPACE_HEADER,
  workspaceTarget,
} from '../../access/authorize';
import type { Principal } from '../../shared/principal';
import { twoFactorRequired } from '../two-factor/two-factor.errors';
import { Authenticated, BearerStrategy } from './bearer.strategy';
import { CredentialCache, type Membership } from './credential-cache.service';
import { invalidCredentials } from './credentials';

/**
 * The global guard. Default deny: every route needs a credential unless its @Endpoint
 * (or @Access) declares it public. It resolves the bearer credential (API token or
 * JWT), the workspace the request acts in (path, X-Workspace-Id, or the body or query
 * of a `workspaceIn` route), and the caller's scopes, then applies the route's
 * credential kind, scopes, roles and `workspaceWide`; the result is `req.principal`.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** By handler: a route's access is declared on its handler alone. */
  private readonly access = new WeakMap<Function, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly strategy: BearerStrategy,
    private readonly cache: CredentialCache,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.accessOf(context.getHandler());
    if (access.isPublic) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { principal?: Principal }>();

    const { credential, epoch } = await this.authenticate(req);
    checkCredentialKind(access, credential.kind);
    const param = req.params?.workspaceId as string | undefined;
    const target = workspaceTarget(param, req.headers[WORKSPACE_HEADER]);
    let principal: Principal;
    let membership: Membership | null = null;
    if (credential.kind === 'token') {
      principal = tokenPrincipal(credential, target);
    } else {
      membership = target.workspaceId === null ? null : await this.cache.membership(target.workspaceId, credential.userId, epoch);
      principal = userPrincipal(credential, target, membership?.role ?? null, access);
    }
    if (access.workspaceIn) {
      const named = namedWorkspace(access.workspaceIn, req.body, req.query);
      if (credential.kind === 'user') membership = await this.cache.membership(named, credential.userId, epoch);
      principal = namedWorkspacePrincipal(principal, named, membership?.role ?? null);
    }
    // A workspace's two-factor policy holds its members' dashboard sessions only: an API token is a second secret already.
    if (credential.kind === 'user' && principal.workspaceId && membership?.requireTwoFactor && !(await this.cache.hasSecondFactor(credential.userId, epoch))) {
      throw twoFactorRequired(principal.workspaceId);
    }
    checkRequirements(access, principal);
    req.principal = principal;
    return true;
  }

  /** A route's declared rules: decorators are fixed once the app is built, so each route's are read once, not per request. */
  private accessOf(handler: Function): RouteAccess {
    let access = this.access.get(handler);
    if (!access) this.access.set(handler, (access = routeAccess(this.reflector, handler)));
    return access;
  }

  /**
   * Drives the passport strategy the way passport.authenticate() does, without its
   * middleware: a fresh instance per request (Object.create) carrying this request's
   * action functions, then `authenticate(req)`. passport's middleware also builds a
   * closure chain and hangs seven session helpers (req.login, req.logout...) on every
   * request, which a bearer API never uses: about a quarter of what a request allocated.
   */
  private authenticate(req: Request): Promise<Authenticated> {
    return new Promise((resolve, reject) => {
      const strategy = Object.create(this.strategy) as BearerStrategy & StrategyActions;
      strategy.success = resolve;
      strategy.fail = () => reject(invalidCredentials());
      strategy.error = reject;
      // A bearer strategy never redirects nor passes; if it did, the request is not authenticated.
      strategy.redirect = strategy.pass = strategy.fail;
      strategy.authenticate(req, { session: false });
    });
  }
}

/** What passport.authenticate() adds to a strategy instance before calling it (passport's Strategy contract). */
interface StrategyActions {
  success(authenticated: Authenticated): void;
  fail(): void;
  error(err: unknown): void;
  redirect(): void;
  pass(): void;
}
