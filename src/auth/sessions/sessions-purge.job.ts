import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../../common/periodic-job';
import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { ADVISORY_LOCKS } from '../../database/advisory-locks';
import { SessionsRepository } from './sessions.repository';

export interface SessionsPurgeReport extends JobReport {
  tokensPurged: number;
  sessionsPurged: number;
}

/** Tokens expired longer ago than this go; the day between keeps a just-expired session listed as ended rather than gone mid-look. */
const GRACE_MS = 24 * 60 * 60 * 1000;
/** Rows per statement: a backlog (the first run on an old database) goes in short transactions. */
const BATCH = 5_000;
/** Batches per run, so one run never holds the maintenance queue for long; the rest waits for the next. */
const MAX_BATCHES = 20;

/**
 * Every 60 × SWEEP_INTERVAL_SECONDS (an hour by default; 0 disables it; tests call runOnce):
 * forgets expired refresh tokens and the sessions they leave empty, so refresh_tokens and
 * auth_sessions do not grow with every sign-in ever made. One instance at a time (advisory
 * lock). Hourly rather than every sweep: a delete on refresh_tokens bumps the auth epoch
 * (its trigger cannot tell an expired row from a live one), and each bump empties every
 * instance's credential cache once.
 */
@Injectable()
export class SessionsPurge extends PeriodicJob<SessionsPurgeReport> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sessions: SessionsRepository,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    super(SessionsPurge.name, config.SWEEP_INTERVAL_SECONDS * 60, { dataSource, lockId: ADVISORY_LOCKS.sessionsPurge }, MAINTENANCE_QUEUE);
  }

  /** One round; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<SessionsPurgeReport> {
    return (await this.trigger()) ?? { ran: false, tokensPurged: 0, sessionsPurged: 0 };
  }

  protected async work(): Promise<SessionsPurgeReport> {
    const before = new Date(this.clock.now().getTime() - GRACE_MS);
    const report = { ran: true, tokensPurged: 0, sessionsPurged: 0 };
    for (let i = 0; i < MAX_BATCHES; i++) {
      const { tokens, sessions } = await this.dataSource.transaction((m) => this.sessions.purgeExpired(m, before, BATCH));
      report.tokensPurged += tokens;
      report.sessionsPurged += sessions;
      if (tokens < BATCH) break;
    }
    if (report.tokensPurged > 0) this.logger.log(`forgot ${report.tokensPurged} expired refresh tokens and ${report.sessionsPurged} ended sessions`);
    return report;
  }
}
