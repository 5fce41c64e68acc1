import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ProjectsService } from '../projects/projects.service';
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
 * to any more, and forgets old idempotency keys and gate attempt counters. Several
 * instances may run it: an advisory lock lets one through at a time.
 */
@Injectable()
export class TtlSweeper extends PeriodicJob<SweepReport> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly projects: ProjectsService,
  ) {
    super(TtlSweeper.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: SWEEP_LOCK });
  }

  /** One sweep; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<SweepReport> {
    return (await this.trigger()) ?? { ran: false, expired: 0, objectsDeleted: 0, idempotencyKeysPurged: 0 };
  }

  protected async work(): Promise<SweepReport> {
    const expired = await this.expireDeployments();
    const objectsDeleted = await this.blobs.collectGarbage(this.config.BLOB_GC_GRACE_SECONDS * 1000);
    const idempotencyKeysPurged = await this.idempotency.purgeExpired();
    // Gate attempt counters whose window has passed (the limiter never deletes them itself).
    await this.dataSource.query('DELETE FROM gate_rate_limits WHERE expire < $1', [this.clock.now().getTime()]);
    return { ran: true, expired, objectsDeleted, idempotencyKeysPurged };
  }

  private async expireDeployments(): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const [rows]: [{ project_id: string }[], number] = await m.query(
        `UPDATE deployments SET status = 'expired'
         WHERE status <> 'expired' AND expires_at IS NOT NULL AND expires_at <= $1
         RETURNING project_id`,
        [this.clock.now()],
      );
      for (const projectId of new Set(rows.map((r) => r.project_id))) await this.projects.notifySiteChanged(m, projectId);
      return rows.length;
    });
  }
}
