import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Observable } from 'rxjs';

import { addressPrefix } from '../common/address-prefix';
import { clientAddress } from '../common/client-address';
import { AppConfig } from '../config/app-config';
import { AUDIT_DECLARATION, type AuditDeclaration } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { type AuditActor, type AuditRequest, enterAuditRequest } from './audit-context';
import { userAgentFamily } from './user-agent-family';

function actorOf(principal: Principal | undefined): AuditActor | null {
  if (!principal) return null;
  if (principal.kind === 'token') return { type: 'token', id: principal.tokenId ?? null };
  return { type: 'user', id: principal.userId ?? null };
}

/**
 * Runs each API handler inside its AuditRequest: the caller the guard resolved, the
 * client's network and family, the request id. The handler is subscribed to inside the
 * store, so every await of the handler, and so every `AuditLogService.record`, sees it.
 */
@Injectable()
export class AuditContextInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request & { principal?: Principal; id?: string }>();
    const declaration = this.reflector.get<AuditDeclaration | undefined>(AUDIT_DECLARATION, context.getHandler());
    const trust = this.config.trustProxy;
    // The network and the client family are worked out only for a request that writes an
    // entry or starts a session: parsing every API request's user agent showed in bench:api.
    let ip: string | undefined;
    let userAgent: string | null | undefined;
    const request: AuditRequest = {
      requestId: req.id ?? null,
      get ip() {
        return (ip ??= addressPrefix(clientAddress(req, trust)));
      },
      get userAgent() {
        if (userAgent === undefined) userAgent = userAgentFamily(req.headers['user-agent']);
        return userAgent;
      },
      actor: actorOf(req.principal),
      declared: typeof declaration === 'string' ? declaration : null,
      recorded: 0,
    };
    return new Observable((subscriber) => {
      const { result: subscription, leave } = enterAuditRequest(request, () => next.handle().subscribe(subscriber));
      return () => {
        subscription.unsubscribe();
        leave();
      };
    });
  }
}
