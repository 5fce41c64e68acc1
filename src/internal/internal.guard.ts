import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { notFound } from '../common/errors';
import { isInternalCaller } from '../common/internal-access';
import { AppConfig } from '../config/app-config';

/**
 * Lets only the infrastructure in (see isInternalCaller). Everyone else gets the same
 * 404 as an unknown route, so the endpoint's existence is not advertised.
 */
@Injectable()
export class InternalGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (isInternalCaller(req.socket.remoteAddress, req.headers, this.config.INTERNAL_TOKEN)) return true;
    throw notFound('Route', `${req.method} ${req.path}`);
  }
}
