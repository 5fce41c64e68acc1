import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { MAINTENANCE_QUEUE, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { AuditRepository } from './audit.repository';

export interface AuditRetentionReport {
  ran: boolean;
  removed: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): deletes the audit-log
 * entries older than AUDIT_RETENTION_DAYS, one instance at a time (advisory lock). Each
 * workspace's head remembers the last entry removed, so verify checks the rest of the chain.
 */
@Injectable()
export class AuditRetentionJob extends PeriodicJob<AuditRetentionReport> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {
    super(AuditRetentionJob.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.auditRetention }, MAINTENANCE_QUEUE);
  }

  async runOnce(): Promise<AuditRetentionReport> {
    return (await this.trigger()) ?? { ran: false, removed: 0 };
  }

  protected async work(): Promise<AuditRetentionReport> {
    const before = new Date(this.clock.now().getTime() - this.config.AUDIT_RETENTION_DAYS * 86_400_000);
    const removed = await this.dataSource.transaction((m) => this.repository.prune(m, before));
    if (removed > 0) this.logger.log(`removed ${removed} audit-log entries older than ${before.toISOString()}`);
    return { ran: true, removed };
  }
}
