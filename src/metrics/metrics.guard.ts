import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { notFound } from '../common/errors';
import { isInternalCaller } from '../common/internal-access';
import { AppConfig } from '../config/app-config';

/**
 * /metrics for the monitoring system: a direct loopback caller, or the bearer of
 * METRICS_TOKEN. INTERNAL_TOKEN does not open it (and METRICS_TOKEN does not open
 * /internal/*): a scraper's credential sits in another system's configuration, and
 * leaking it must not let anyone drive the TLS ask. Anyone else gets an unknown route's 404.
 */
@Injectable()
export class MetricsGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (isInternalCaller(req.socket.remoteAddress, req.headers, this.config.METRICS_TOKEN)) return true;
    throw notFound('Route', `${req.method} ${req.path}`);
  }
}
