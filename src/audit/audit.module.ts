import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';

import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditContextInterceptor } from './audit-context.interceptor';
import { AuditLogService } from './audit-log.service';
import { AuditQueryService } from './audit-query.service';
import { AuditRetentionJob } from './audit-retention.job';

/** The audit log every feature writes to in its own transactions (issue 32), and its read side. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [AuditRepository, AuditLogService, AuditQueryService, AuditRetentionJob, { provide: APP_INTERCEPTOR, useClass: AuditContextInterceptor }],
  exports: [AuditLogService],
})
export class AuditModule {}
