import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../common/periodic-job';
import { Clock, DAY_MS } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { WebhooksRepository } from './webhooks.repository';

/** How long a finished delivery stays listed under its endpoint. */
export const DELIVERY_RETENTION_DAYS = 30;

export interface WebhookDeliveriesPurgeReport extends JobReport {
  deliveriesPurged: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): forgets outgoing
 * webhook deliveries that ended more than 30 days ago, so webhook_deliveries (and the
 * sealed bodies it keeps) does not grow for ever. One instance at a time (advisory lock).
 */
@Injectable()
export class WebhookDeliveriesPurge extends PeriodicJob<WebhookDeliveriesPurgeReport> {
  constructor(
    dataSource: DataSource,
    private readonly webhooks: WebhooksRepository,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    super(WebhookDeliveriesPurge.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.webhookDeliveriesPurge }, MAINTENANCE_QUEUE);
  }

  async runOnce(): Promise<WebhookDeliveriesPurgeReport> {
    return (await this.trigger()) ?? { ran: false, deliveriesPurged: 0 };
  }

  protected async work(): Promise<WebhookDeliveriesPurgeReport> {
    return { ran: true, deliveriesPurged: await this.webhooks.purgeBefore(new Date(this.clock.now().getTime() - DELIVERY_RETENTION_DAYS * DAY_MS)) };
  }
}
