import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface JobLock {
  dataSource: DataSource;
  /** A PostgreSQL advisory lock id of this job's own (see the constants beside each job). */
  lockId: number;
}

/**
 * A background job run every `intervalSeconds` (0 disables the timer; tests call
 * `trigger()` through the job's own `runOnce`). With a lock, one instance at a time
 * runs it: the others skip that round. A round never overlaps the previous one, and
 * shutting down waits for the round in progress.
 */
export abstract class PeriodicJob<R> implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<R | undefined>;

  protected constructor(
    name: string,
    private readonly intervalSeconds: number,
    private readonly lock?: JobLock,
  ) {
    this.logger = new Logger(name);
  }

  /** One round of the job's work. */
  protected abstract work(): Promise<R>;

  onApplicationBootstrap(): void {
    if (this.intervalSeconds <= 0) return;
    this.timer = setInterval(() => {
      this.trigger().catch((err) => this.logger.error(`run failed: ${(err as Error).message}`, (err as Error).stack));
    }, this.intervalSeconds * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Runs one round now (joining one in progress); undefined when another instance held the lock. */
  protected trigger(): Promise<R | undefined> {
    this.running ??= this.exclusive().finally(() => (this.running = undefined));
    return this.running;
  }

  private async exclusive(): Promise<R | undefined> {
    if (!this.lock) return this.work();
    // A session-level lock needs one connection for the whole round.
    const runner = this.lock.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [this.lock.lockId]);
      if (!locked) return undefined;
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
