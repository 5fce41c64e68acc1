import { Injectable } from '@nestjs/common';

import { PeriodicJob } from '../common/periodic-job';
import { AppConfig } from '../config/app-config';
import { QuotaService } from '../quotas/quota.service';
import { BillingService } from './billing.service';

export interface BillingSweepReport {
  /** Workspaces whose paid plan ended (cancelled at its period's end, ended at the provider, or past_due past its grace) and that are back on free. */
  subscriptionsEnded: number;
  /** Workspaces whose storage count was rebuilt after deployments expired or were deleted. */
  storageRecounted: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): writes `free`
 * back to workspaces whose paid plan has ended (cancelled, or a failed renewal past its
 * BILLING_GRACE_DAYS) and mails their owners, and recounts the storage of
 * workspaces whose deployments left the count, so requests rarely have to. Both
 * are safe to run on several instances at once.
 */
@Injectable()
export class BillingSweeper extends PeriodicJob<BillingSweepReport> {
  constructor(
    private readonly billing: BillingService,
    private readonly quotas: QuotaService,
    config: AppConfig,
  ) {
    // No lock: both steps are safe on several instances at once.
    super(BillingSweeper.name, config.SWEEP_INTERVAL_SECONDS);
  }

  async runOnce(): Promise<BillingSweepReport> {
    return (await this.trigger())!;
  }

  protected async work(): Promise<BillingSweepReport> {
    const subscriptionsEnded = await this.billing.endLapsedSubscriptions();
    const storageRecounted = await this.quotas.refreshStaleStorage();
    return { subscriptionsEnded, storageRecounted };
  }
}
