import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';

import { AuditRepository } from './audit.repository';
import { AuditContextInterceptor } from './audit-context.interceptor';
import { AuditLogService } from './audit-log.service';

/** The audit log every feature writes to in its own transactions (issue 32). */
@Global()
@Module({
  providers: [AuditRepository, AuditLogService, { provide: APP_INTERCEPTOR, useClass: AuditContextInterceptor }],
  exports: [AuditLogService],
})
export class AuditModule {}
