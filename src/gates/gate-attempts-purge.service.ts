import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { GateAttemptsRepository } from './gate-attempts.repository';

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): deletes the
 * gates' attempt counters whose window has passed, which rate-limiter-flexible
 * never does itself. One instance at a time (advisory lock).
 */
@Injectable()
export class GateAttemptsPurge extends PeriodicJob<JobReport> {
  constructor(
    dataSource: DataSource,
    private readonly attempts: GateAttemptsRepository,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    super(GateAttemptsPurge.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.gateAttemptsPurge }, MAINTENANCE_QUEUE);
  }

  /** One round; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<JobReport> {
    return (await this.trigger()) ?? { ran: false };
  }

  protected async work(): Promise<JobReport> {
    await this.attempts.purgeExpired(this.clock.now().getTime());
    return { ran: true };
  }
}
