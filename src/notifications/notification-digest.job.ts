import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { dailyCutoff, immediateBefore } from './digest-schedule';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

const BATCH = 100;

export interface DigestReport extends JobReport {
  /** Digest mails queued this round. */
  mails: number;
}

/**
 * Sends the digests of new leads and form submissions that are due (docs/notifications.md):
 * every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce), one instance at a
 * time. Each recipient's items are taken and their mail queued in one transaction, so a
 * crash sends neither twice nor never.
 */
@Injectable()
export class NotificationDigestJob extends PeriodicJob<DigestReport> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: NotificationsRepository,
    private readonly notifications: NotificationsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(NotificationDigestJob.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.notificationDigest });
  }

  async runOnce(): Promise<DigestReport> {
    return (await this.trigger()) ?? { ran: false, mails: 0 };
  }

  protected async work(): Promise<DigestReport> {
    const report: DigestReport = { ran: true, mails: 0 };
    await this.repository.dropUndeliverable();
    const now = this.clock.now();
    const due = await this.repository.due(
      now,
      immediateBefore(now, this.config.NOTIFICATIONS_DIGEST_WINDOW_SECONDS),
      dailyCutoff(now, this.config.NOTIFICATIONS_DAILY_DIGEST_HOUR),
      BATCH,
    );
    for (const recipient of due) {
      const listed = await this.dataSource.transaction(async (m) => {
        const items = await this.repository.take(m, recipient.userId, recipient.workspaceId, recipient.until);
        return this.notifications.queueDigest(m, recipient, items);
      });
      if (listed > 0) report.mails++;
    }
    return report;
  }
}
