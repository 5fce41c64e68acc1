import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, PeriodicJob } from '../../common/periodic-job';
import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { ADVISORY_LOCKS } from '../../database/advisory-locks';
import { BuildEvents } from '../build-events';
import { BuildsRepository } from '../builds.repository';
import { BuildLogsService } from '../logs/build-logs.service';
import { BuildFeedback } from '../ports';

/** Builds kept per project: the newest ones; older finished builds go, with their logs. */
export const BUILDS_KEPT_PER_PROJECT = 100;
export const LEASE_EXPIRED = 'the builder stopped responding (its lease expired); start the build again';
export const NEVER_STARTED = 'the build was queued but never started (the server stopped or failed before handing it to a builder); start the build again';
/** A queued build's job is sent right after its commit: older than this without one, it never will be. */
export const ORPHAN_AFTER_MS = 5 * 60_000;

export interface BuildSweepReport extends JobReport {
  failed: number;
  archived: number;
  deleted: number;
}

/**
 * Fails running builds whose builder stopped renewing its lease (killed, lost its
 * network), so the next build of the branch runs and the record says why; moves the
 * lines such a build left in the table into the storage provider; and deletes finished
 * builds past the newest BUILDS_KEPT_PER_PROJECT of their project, logs included. Runs
 * at half the lease, one instance at a time; off with SWEEP_INTERVAL_SECONDS=0, as the
 * other maintenance jobs (tests call runOnce).
 */
@Injectable()
export class BuildSweeper extends PeriodicJob<BuildSweepReport> {
  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
    private readonly clock: Clock,
    private readonly builds: BuildsRepository,
    private readonly logs: BuildLogsService,
    private readonly feedback: BuildFeedback,
    private readonly events: BuildEvents,
  ) {
    super(BuildSweeper.name, config.SWEEP_INTERVAL_SECONDS > 0 ? Math.max(1, Math.floor(config.BUILD_LEASE_SECONDS / 2)) : 0, {
      dataSource,
      lockId: ADVISORY_LOCKS.buildSweep,
    });
  }

  async runOnce(): Promise<BuildSweepReport> {
    return (await this.trigger()) ?? { ran: false, failed: 0, archived: 0, deleted: 0 };
  }

  protected async work(): Promise<BuildSweepReport> {
    const failed = await this.dataSource.transaction(async (m) => {
      const now = this.clock.now();
      const ids = [
        ...(await this.builds.failExpiredLeases(now, LEASE_EXPIRED, m)),
        ...(await this.builds.failOrphanedQueued(now, new Date(now.getTime() - ORPHAN_AFTER_MS), NEVER_STARTED, m)),
      ];
      // Its builder is gone, so its end (failed, or ready when its deploy had committed) is announced here.
      for (const id of ids) {
        const build = (await this.builds.findById(id, m))!;
        await this.events.emit(m, build, await this.events.productionBranch(build.projectId));
      }
      return ids;
    });
    // Its builder is gone, so nobody else tells the forge that the pending status is over.
    for (const id of failed) this.feedback.buildChanged(id);
    const chunked = await this.builds.finishedWithChunkedLog(20);
    for (const id of chunked) await this.logs.archive(id);
    const deleted = await this.builds.deleteBeyondNewest(BUILDS_KEPT_PER_PROJECT, 500);
    for (const build of deleted) if (build.logStored) await this.logs.deleteStored(build.id);
    return { ran: true, failed: failed.length, archived: chunked.length, deleted: deleted.length };
  }
}
