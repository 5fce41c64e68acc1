import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AppConfig } from '../../config/app-config';
import { ADVISORY_LOCKS } from '../../database/advisory-locks';
import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../periodic-job';
import { IdempotencyService } from './idempotency.service';

export interface IdempotencyPurgeReport extends JobReport {
  keysPurged: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): forgets
 * idempotency keys older than their 24 h lifetime. One instance at a time (advisory lock).
 */
@Injectable()
export class IdempotencyPurge extends PeriodicJob<IdempotencyPurgeReport> {
  constructor(
    dataSource: DataSource,
    private readonly idempotency: IdempotencyService,
    config: AppConfig,
  ) {
    super(IdempotencyPurge.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.idempotencyPurge }, MAINTENANCE_QUEUE);
  }

  /** One round; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<IdempotencyPurgeReport> {
    return (await this.trigger()) ?? { ran: false, keysPurged: 0 };
  }

  protected async work(): Promise<IdempotencyPurgeReport> {
    return { ran: true, keysPurged: await this.idempotency.purgeExpired() };
  }
}
