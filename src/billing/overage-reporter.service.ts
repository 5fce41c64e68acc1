import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { monthKey, nextMonthStart } from '../quotas/quota';
import { MeteringRepository } from './metering.repository';
import { PaymentProvider } from './payment-provider';

export interface OverageReport extends JobReport {
  /** Meter events the provider accepted in this round. */
  reported: number;
  failed: number;
}

/**
 * Reports bandwidth overage (bytes served past a paid plan's monthly limit while the spend
 * cap is off) to Stripe as Billing Meter events, for the next invoice. One instance at a
 * time (advisory lock), every OVERAGE_REPORT_INTERVAL_SECONDS; only with the stripe
 * provider and STRIPE_METER_EVENT_NAME set.
 *
 * Each byte is reported once: a report first records the overage total it brings the month
 * to (`overage_pending_bytes`), then calls Stripe with an identifier made of that total,
 * then marks it reported. A crash or a failed call leaves it in flight and the next round
 * sends the very same event, which Stripe counts once (its identifier). The month before
 * the current one is looked at too, so bytes counted after its last round are still billed.
 */
@Injectable()
export class OverageReporter extends PeriodicJob<OverageReport> {
  private readonly eventName: string | undefined;

  constructor(
    dataSource: DataSource,
    config: AppConfig,
    private readonly metering: MeteringRepository,
    private readonly provider: PaymentProvider,
    private readonly clock: Clock,
  ) {
    const on = config.PAYMENT_PROVIDER === 'stripe' && !!config.STRIPE_METER_EVENT_NAME;
    super(OverageReporter.name, on ? config.OVERAGE_REPORT_INTERVAL_SECONDS : 0, { dataSource, lockId: ADVISORY_LOCKS.overageReport });
    this.eventName = on ? config.STRIPE_METER_EVENT_NAME : undefined;
  }

  async runOnce(): Promise<OverageReport> {
    return (await this.trigger()) ?? { ran: false, reported: 0, failed: 0 };
  }

  protected async work(): Promise<OverageReport> {
    const report: OverageReport = { ran: true, reported: 0, failed: 0 };
    if (!this.eventName || this.provider.name !== 'stripe') return report;
    const now = this.clock.now();
    const previous = monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
    for (const row of await this.metering.overageCandidates(previous)) {
      let through = row.pending === null ? null : Number(row.pending);
      if (through === null) {
        const over = Number(row.overage);
        if (over <= Number(row.reported)) continue;
        if (!(await this.metering.startReport(row.workspace_id, row.month, over))) continue;
        through = over;
      }
      const value = through - Number(row.reported);
      try {
        await this.provider.reportUsage({
          customerRef: row.customer_ref,
          eventName: this.eventName,
          value,
          identifier: `statichost-bandwidth-${row.workspace_id}-${row.month}-${through}`,
          // Last month's overage is dated in last month, so Stripe bills it in the period it was served in.
          timestamp: new Date(Math.min(now.getTime(), nextMonthStart(new Date(`${row.month}T00:00:00Z`)).getTime() - 1000)),
        });
        await this.metering.finishReport(row.workspace_id, row.month, through);
        report.reported++;
      } catch (err) {
        report.failed++;
        this.logger.warn(`overage of ${row.workspace_id} for ${row.month} not reported yet (retried next round): ${(err as Error).message}`);
      }
    }
    return report;
  }
}
