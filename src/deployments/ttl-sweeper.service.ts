import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { BlobStore } from '../blobs/blob-store.service';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { type JobReport, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { ProjectsService } from '../projects/projects.service';
import { DeploymentsRepository } from './deployments.repository';

/** Something another module forgets on every sweep (it owns the table; the sweep owns the schedule). */
export type SweepPurge = (now: Date) => Promise<void>;

export interface SweepReport extends JobReport {
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
  private readonly purges: SweepPurge[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly projects: ProjectsService,
    private readonly deployments: DeploymentsRepository,
  ) {
    super(TtlSweeper.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.ttlSweep });
  }

  /** Adds a purge to every sweep (e.g. the password gate's expired attempt counters). */
  alsoPurge(purge: SweepPurge): void {
    this.purges.push(purge);
  }

  /** One sweep; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<SweepReport> {
    return (await this.trigger()) ?? { ran: false, expired: 0, objectsDeleted: 0, idempotencyKeysPurged: 0 };
  }

  protected async work(): Promise<SweepReport> {
    const expired = await this.expireDeployments();
    const objectsDeleted = await this.blobs.collectGarbage(this.config.BLOB_GC_GRACE_SECONDS * 1000);
    const idempotencyKeysPurged = await this.idempotency.purgeExpired();
    for (const purge of this.purges) await purge(this.clock.now());
    return { ran: true, expired, objectsDeleted, idempotencyKeysPurged };
  }

  private async expireDeployments(): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const projectIds = await this.deployments.expireDue(m, this.clock.now());
      for (const projectId of new Set(projectIds)) await this.projects.notifySiteChanged(m, projectId);
      return projectIds.length;
    });
  }
}
