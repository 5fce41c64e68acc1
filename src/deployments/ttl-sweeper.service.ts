import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { notifySiteChanged } from '../projects/site-events';
import { BlobStore } from './blob-store.service';

/** Any constant: the advisory lock that lets one instance at a time run the sweep. */
const SWEEP_LOCK = 7_461_004;

export interface SweepReport {
  ran: boolean;
  expired: number;
  objectsDeleted: number;
  idempotencyKeysPurged: number;
}

/**
 * Marks deployments past their expiry as expired, deletes objects nothing refers
 * to any more, and forgets old idempotency keys and gate attempt counters. Several instances may run it:
 * an advisory lock lets one through at a time.
 */
@Injectable()
export class TtlSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TtlSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<SweepReport>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.SWEEP_INTERVAL_SECONDS;
    if (seconds <= 0) return;
    this.timer = setInterval(() => {
      this.runOnce().catch((err) => this.logger.error(`sweep failed: ${(err as Error).message}`));
    }, seconds * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One sweep; `ran` is false when another instance holds the lock. */
  runOnce(): Promise<SweepReport> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<SweepReport> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [SWEEP_LOCK]);
      if (!locked) return { ran: false, expired: 0, objectsDeleted: 0, idempotencyKeysPurged: 0 };
      try {
        const expired = await this.expireDeployments();
        const objectsDeleted = await this.blobs.collectGarbage(this.config.BLOB_GC_GRACE_SECONDS * 1000);
        const idempotencyKeysPurged = await this.idempotency.purgeExpired();
        // Gate attempt counters whose window has passed (the limiter never deletes them itself).
        await this.dataSource.query('DELETE FROM gate_rate_limits WHERE expire < $1', [this.clock.now().getTime()]);
        return { ran: true, expired, objectsDeleted, idempotencyKeysPurged };
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  private async expireDeployments(): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const [rows]: [{ project_id: string }[], number] = await m.query(
        `UPDATE deployments SET status = 'expired'
         WHERE status <> 'expired' AND expires_at IS NOT NULL AND expires_at <= $1
         RETURNING project_id`,
        [this.clock.now()],
      );
      for (const projectId of new Set(rows.map((r) => r.project_id))) await notifySiteChanged(m, projectId);
      return rows.length;
    });
  }
}
