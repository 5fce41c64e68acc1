import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import type { Project } from '../projects/project.entity';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';

/** Domains checked per run; the rest wait for the next run. Bounds one run's time. */
const BATCH = 200;
/** Checks in flight at once: each holds a DNS query, then briefly a database connection. */
const CONCURRENCY = 4;

export interface RecheckReport extends JobReport {
  checked: number;
  /** Token still published. */
  passed: number;
  /** Token missing, still serving within the failure window. */
  failing: number;
  /** Token missing for DOMAIN_FAIL_AFTER_HOURS: now `failed`, no longer served. */
  failed: number;
  /** Our resolvers did not answer: nothing counted. */
  inconclusive: number;
}

/**
 * Checks verified custom domains again once their last check is
 * DOMAIN_RECHECK_INTERVAL_SECONDS old (daily by default), so a domain whose owner
 * removed the records, or that changed hands, stops being served by a project that
 * no longer controls it. It wakes every SWEEP_INTERVAL_SECONDS like the TTL sweeper
 * (0 disables the timer; tests call runOnce), and an advisory lock lets one
 * instance at a time through.
 */
@Injectable()
export class DomainRechecker extends PeriodicJob<RecheckReport> {
  constructor(
    dataSource: DataSource,
    private readonly rows: DomainsRepository,
    private readonly domains: DomainsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(DomainRechecker.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.domainRecheck });
  }

  /** One run over the domains that are due; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<RecheckReport> {
    return (await this.trigger()) ?? { ran: false, checked: 0, passed: 0, failing: 0, failed: 0, inconclusive: 0 };
  }

  protected async work(): Promise<RecheckReport> {
    const report: RecheckReport = { ran: true, checked: 0, passed: 0, failing: 0, failed: 0, inconclusive: 0 };
    const due = await this.due();
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const project = due[next++];
        try {
          const outcome = await this.domains.recheck(project);
          if (!outcome) continue;
          report.checked++;
          if (outcome.verdict === 'inconclusive') report.inconclusive++;
          else if (outcome.verdict === 'verified') report.passed++;
          else if (outcome.status === 'failed') report.failed++;
          else report.failing++;
        } catch (err) {
          // One domain's trouble must not stop the others; it is due again next run.
          this.logger.error(`re-check of ${project.customDomain} (project ${project.id}) failed: ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
    return report;
  }

  /** Verified domains whose last check is at least one interval old, the longest waiting first. */
  private due(): Promise<Project[]> {
    const before = new Date(this.clock.now().getTime() - this.config.DOMAIN_RECHECK_INTERVAL_SECONDS * 1000);
    return this.rows.dueForRecheck(before, BATCH);
  }
}
