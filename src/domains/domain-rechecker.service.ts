import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { Project } from '../projects/project.entity';
import { DomainsService } from './domains.service';

/** Any constant (not the TTL sweeper's): lets one instance at a time run the re-check. */
export const RECHECK_LOCK = 7_461_008;
/** Domains checked per run; the rest wait for the next run. Bounds one run's time. */
const BATCH = 200;
/** Checks in flight at once: each holds a DNS query, then briefly a database connection. */
const CONCURRENCY = 4;

export interface RecheckReport {
  ran: boolean;
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
export class DomainRechecker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DomainRechecker.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<RecheckReport>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly domains: DomainsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.SWEEP_INTERVAL_SECONDS;
    if (seconds <= 0) return;
    this.timer = setInterval(() => {
      this.runOnce().catch((err) => this.logger.error(`domain re-check failed: ${(err as Error).message}`));
    }, seconds * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One run over the domains that are due; `ran` is false when another instance holds the lock. */
  runOnce(): Promise<RecheckReport> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<RecheckReport> {
    const report: RecheckReport = { ran: false, checked: 0, passed: 0, failing: 0, failed: 0, inconclusive: 0 };
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [RECHECK_LOCK]);
      if (!locked) return report;
      report.ran = true;
      try {
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
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [RECHECK_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Verified domains whose last check is at least one interval old, the longest waiting first. */
  private due(): Promise<Project[]> {
    const before = new Date(this.clock.now().getTime() - this.config.DOMAIN_RECHECK_INTERVAL_SECONDS * 1000);
    return this.dataSource
      .getRepository(Project)
      .createQueryBuilder('p')
      .where(`p.domain_status = 'verified'`)
      .andWhere('(p.domain_checked_at IS NULL OR p.domain_checked_at <= :before)', { before })
      .orderBy('p.domain_checked_at', 'ASC', 'NULLS FIRST')
      .limit(BATCH)
      .getMany();
  }
}
