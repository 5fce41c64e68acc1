import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type DataSource } from 'typeorm';

import { KeyedTurns } from './keyed-turns';

const SKIPPED = Symbol('skipped');

export interface JobLock {
  dataSource: DataSource;
  /** A PostgreSQL advisory lock id of this job's own (src/database/advisory-locks.ts). */
  lockId: number;
}

/**
 * The queue of the jobs that clean up after the features (expired deployments, blob
 * garbage, spent idempotency keys and gate counters). They share one interval, and each
 * round holds a connection for its advisory lock plus those of its work: run side by side,
 * four of them would take most of the default pool from requests at every tick. In one
 * queue, an instance runs them one after another, as the single sweep that did all four did.
 */
export const MAINTENANCE_QUEUE = 'maintenance';

/** The rounds queued in each queue of this process. */
const queues = new KeyedTurns();

/** Runs `round` once every round queued before it in `queue` has ended (at once without a queue). */
function inTurn<T>(queue: string | undefined, round: () => Promise<T>): Promise<T> {
  return queue === undefined ? round() : queues.run(queue, round);
}

/** What a locked job's round reports: `ran` is false when another instance held the lock and nothing was done. */
export interface JobReport {
  ran: boolean;
}

/**
 * A background job run every `intervalSeconds` (0 disables the timer; tests call
 * `trigger()` through the job's own `runOnce`). With a lock, one instance at a time
 * runs it: the others skip that round. A round never overlaps the previous one, and
 * shutting down waits for the round in progress.
 */
/** How one round ended: `skipped` when another instance held the lock. */
export type JobOutcome = 'ok' | 'failed' | 'skipped';

export abstract class PeriodicJob<R> implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<R | undefined>;
  private readonly observers: ((outcome: JobOutcome) => void)[] = [];

  protected constructor(
    name: string,
    private readonly intervalSeconds: number,
    private readonly lock?: JobLock,
    /** Rounds of the jobs of one queue take turns in this process (MAINTENANCE_QUEUE). */
    private readonly queue?: string,
  ) {
    this.logger = new Logger(name);
  }

  /** One round of the job's work. */
  protected abstract work(): Promise<R>;

  onApplicationBootstrap(): void {
    if (this.intervalSeconds <= 0) return;
    this.timer = setInterval(() => {
      if (!this.dueOnTimer()) return;
      this.trigger().catch((err) => this.logger.error(`run failed: ${(err as Error).message}`, (err as Error).stack));
    }, this.intervalSeconds * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Whether the timer's tick runs a round (a job may pace itself; `trigger()` always runs one). */
  protected dueOnTimer(): boolean {
    return true;
  }

  /** Metrics hear of every round's outcome. */
  observe(observer: (outcome: JobOutcome) => void): void {
    this.observers.push(observer);
  }

  /** Runs one round now (joining one in progress); undefined when another instance held the lock. */
  protected trigger(): Promise<R | undefined> {
    this.running ??= inTurn(this.queue, () => this.exclusive())
      .then(
        (result) => {
          this.report(result === SKIPPED ? 'skipped' : 'ok');
          return result === SKIPPED ? undefined : result;
        },
        (err: unknown) => {
          this.report('failed');
          throw err;
        },
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private report(outcome: JobOutcome): void {
    for (const observer of this.observers) observer(outcome);
  }

  private async exclusive(): Promise<R | typeof SKIPPED> {
    if (!this.lock) return this.work();
    // A session-level lock needs one connection for the whole round.
    const runner = this.lock.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [this.lock.lockId]);
      if (!locked) return SKIPPED;
      try {
        return await this.work();
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [this.lock.lockId]);
      }
    } finally {
      await runner.release();
    }
  }
}
