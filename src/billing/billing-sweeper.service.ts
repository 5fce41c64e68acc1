import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { BillingService } from './billing.service';
import { QuotaService } from './quota.service';

export interface BillingSweepReport {
  /** Workspaces whose cancelled plan ended and that are back on free. */
  subscriptionsEnded: number;
  /** Workspaces whose storage count was rebuilt after deployments expired or were deleted. */
  storageRecounted: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): writes `free`
 * back to workspaces whose cancelled plan has ended, and recounts the storage of
 * workspaces whose deployments left the count, so requests rarely have to. Both
 * are safe to run on several instances at once.
 */
@Injectable()
export class BillingSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BillingSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<BillingSweepReport>;

  constructor(
    private readonly billing: BillingService,
    private readonly quotas: QuotaService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.SWEEP_INTERVAL_SECONDS;
    if (seconds <= 0) return;
    this.timer = setInterval(() => {
      this.runOnce().catch((err) => this.logger.error(`billing sweep failed: ${(err as Error).message}`));
    }, seconds * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  runOnce(): Promise<BillingSweepReport> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<BillingSweepReport> {
    const subscriptionsEnded = await this.billing.endLapsedSubscriptions();
    const storageRecounted = await this.quotas.refreshStaleStorage();
    return { subscriptionsEnded, storageRecounted };
  }
}
