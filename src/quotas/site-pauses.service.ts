import { Injectable } from '@nestjs/common';

import { PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { monthKey, nextMonthStart } from './quota';
import { QuotaService } from './quota.service';

/**
 * The workspaces whose sites the spend cap pauses, held in memory by every instance so
 * the site router asks a Set, never the database, per request. Read again every
 * SPEND_CAP_REFRESH_SECONDS, after each of this instance's analytics flushes that took
 * a workspace to its limit, and at once after a cap change made here; a plan change (an
 * upgrade, a plan ending) and any change made on another instance are seen within the
 * refresh interval. The set belongs to the
 * month it was read in: from the first instant of the next month nothing is paused,
 * before any refresh, since the month's count starts at 0.
 */
@Injectable()
export class SitePauses extends PeriodicJob<number> {
  private paused = new Set<string>();
  private month = '';

  constructor(
    config: AppConfig,
    private readonly quotas: QuotaService,
    private readonly clock: Clock,
  ) {
    super(SitePauses.name, config.SPEND_CAP_REFRESH_SECONDS);
  }

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    this.refresh().catch((err) => this.logger.warn(`paused sites not read yet: ${(err as Error).message}`));
  }

  /** Whether the workspace's sites answer 503 now: a Set lookup. */
  isPaused(workspaceId: string): boolean {
    if (this.paused.size === 0 || !this.paused.has(workspaceId)) return false;
    return monthKey(this.clock.now()) === this.month;
  }

  /** Seconds until the next month's count starts: the 503's Retry-After. */
  retryAfterSeconds(): number {
    const now = this.clock.now();
    return Math.max(1, Math.ceil((nextMonthStart(now).getTime() - now.getTime()) / 1000));
  }

  /**
   * Reads the set again now; returns how many workspaces are paused. A read already under
   * way may have begun before the caller's change committed: it is awaited, then one more runs.
   */
  async refresh(): Promise<number> {
    await this.trigger();
    return (await this.trigger()) ?? this.paused.size;
  }

  protected async work(): Promise<number> {
    const month = monthKey(this.clock.now());
    const paused = await this.quotas.pausedWorkspaces();
    this.paused = new Set(paused);
    this.month = month;
    return paused.length;
  }
}
