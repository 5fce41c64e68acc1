import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { EventBus } from '../events/event-bus';
import { ProjectsService } from '../projects/projects.service';
import { DeploymentsRepository } from './deployments.repository';

export interface SweepReport extends JobReport {
  expired: number;
}

/**
 * Marks deployments past their expiry as expired (and tells their sites). Several
 * instances may run it: an advisory lock lets one through at a time. The objects
 * they leave unreferenced are the blobs module's to collect (BlobCollector).
 */
@Injectable()
export class TtlSweeper extends PeriodicJob<SweepReport> {
  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
    private readonly clock: Clock,
    private readonly projects: ProjectsService,
    private readonly deployments: DeploymentsRepository,
    private readonly events: EventBus,
  ) {
    super(TtlSweeper.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.ttlSweep }, MAINTENANCE_QUEUE);
  }

  /** One sweep; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<SweepReport> {
    return (await this.trigger()) ?? { ran: false, expired: 0 };
  }

  protected async work(): Promise<SweepReport> {
    return { ran: true, expired: await this.expireDeployments() };
  }

  private async expireDeployments(): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const now = this.clock.now();
      const expired = await this.deployments.expireDue(m, now);
      for (const projectId of new Set(expired.map((d) => d.projectId))) await this.projects.notifySiteChanged(m, projectId);
      // `archived` with reason `expired`: its address stopped answering, as an archived one's does (docs/events.md).
      for (const d of expired) {
        await this.events.emit(m, {
          type: 'deployment.archived',
          workspaceId: d.workspaceId,
          timestamp: now,
          data: { projectId: d.projectId, projectSlug: d.projectSlug, deploymentId: d.id, version: d.version, reason: 'expired' },
        });
      }
      return expired.length;
    });
  }
}
