import { createHash } from 'node:crypto';

import { CallHandler, createParamDecorator, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { Request, Response } from 'express';
import { catchError, from, mergeMap, Observable, of } from 'rxjs';

import { canonicalJson } from './canonical-json';
import { idempotencyError } from './idempotency.errors';
import { IdempotencyClaim, IdempotencyService } from './idempotency.service';

const KEY = /^[\x21-\x7e]{1,255}$/;
const CLAIM = Symbol('idempotency claim');
type RequestWithClaim = Request & { [CLAIM]?: IdempotencyClaim };
/**
 * The one part of the guard's Principal (src/shared/principal.ts) a key is scoped by. Named
 * here, not imported: common/ sits below shared/ and imports none of it.
 */
type PrincipalWorkspace = { workspaceId: string | null; projectId?: string | null };

/** The request's claim of its Idempotency-Key, if it sent one: for handlers to complete it in their transaction. */
export const IdempotencyClaimOf = createParamDecorator((_data: unknown, context: ExecutionContext): IdempotencyClaim | undefined => {
  return context.switchToHttp().getRequest<RequestWithClaim>()[CLAIM];
});

/** Applies the `Idempotency-Key` header to a route (use with @UseInterceptors). */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<Request & { principal?: PrincipalWorkspace }>();
    const res = context.switchToHttp().getResponse<Response>();
    const key = req.headers['idempotency-key'];
    const workspaceId = req.principal?.workspaceId;
    if (key === undefined || !workspaceId) return next.handle();
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw idempotencyError('invalid_idempotency_key', 'Idempotency-Key header must be 1 to 255 printable ASCII characters');
    }
    // A stored answer is replayed before the handler runs, so before its check that a
    // project-bound token stays in its project: the binding is part of what must match, or
    // such a token repeating another caller's key and body would read that caller's answer.
    // Only a bound caller's hash carries it, so keys in flight across an upgrade still match.
    const projectId = req.principal?.projectId;
    const requestHash = createHash('sha256')
      .update(canonicalJson({ method: req.method, path: req.path, body: req.body, ...(projectId ? { projectId } : {}) }))
      .digest('hex');
    const start = await this.idempotency.begin(workspaceId, key, requestHash);
    if (start.kind === 'replay') {
      res.status(start.status);
      res.setHeader('Idempotent-Replayed', 'true');
      return of(start.body);
    }
    const status: number = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) ?? (req.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    const claim: IdempotencyClaim = { workspaceId, key, createdAt: start.createdAt, status, completed: false };
    (req as RequestWithClaim)[CLAIM] = claim;
    return next.handle().pipe(
      // A handler that completed the key in its own transaction (see IdempotencyClaim) left nothing to do.
      mergeMap((body) => (claim.completed ? of(body) : from(this.idempotency.complete(claim, body).then(() => body)))),
      catchError((err) => from(this.idempotency.abandon(claim).then(() => Promise.reject(err)))),
    );
  }
}
