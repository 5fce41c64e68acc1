import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../common/periodic-job';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { HooksService } from './hooks.service';

export interface GitDeliveriesPurgeReport extends JobReport {
  deliveriesPurged: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): forgets forge
 * webhook deliveries older than 30 days, so git_deliveries stays small. One instance at a
 * time (advisory lock).
 */
@Injectable()
export class GitDeliveriesPurge extends PeriodicJob<GitDeliveriesPurgeReport> {
  constructor(
    dataSource: DataSource,
    private readonly hooks: HooksService,
    config: AppConfig,
  ) {
    super(GitDeliveriesPurge.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.gitDeliveriesPurge }, MAINTENANCE_QUEUE);
  }

  /** One round; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<GitDeliveriesPurgeReport> {
    return (await this.trigger()) ?? { ran: false, deliveriesPurged: 0 };
  }

  protected async work(): Promise<GitDeliveriesPurgeReport> {
    return { ran: true, deliveriesPurged: await this.hooks.purgeOldDeliveries() };
  }
}
