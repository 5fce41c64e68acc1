import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import PgBoss from 'pg-boss';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

import { AppConfig } from '../../config/app-config';

export const BUILD_QUEUE = 'builds';
/** pg-boss's own schema in our database. */
export const QUEUE_SCHEMA = 'pgboss';
/** The shortest polling pg-boss allows; a builder of another process takes a job at most this late. */
const POLL_SECONDS = 0.5;

export interface BuildJobData {
  buildId: string;
}

/**
 * The build queue: pg-boss on our own database (its `pgboss` schema), through the app's
 * connection pool rather than a second one. Started on first use, so an instance that
 * neither starts builds nor runs builders never creates the schema or its timers; stopped
 * with the app.
 */
@Injectable()
export class BuildQueue implements BeforeApplicationShutdown {
  private readonly logger = new Logger('BuildQueue');
  private boss?: Promise<PgBoss>;
  private readonly workerIds: string[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Queues a build. The job expires (pg-boss fails it) well after the build's own timeout and lease would have ended it. */
  async send(buildId: string): Promise<void> {
    const boss = await this.started();
    const expireInSeconds = Math.min(this.config.BUILD_TIMEOUT_SECONDS + 2 * this.config.BUILD_LEASE_SECONDS + 60, 23 * 3600);
    await boss.send(BUILD_QUEUE, { buildId } satisfies BuildJobData, { retryLimit: 0, expireInSeconds });
    // A builder of this process starts at once instead of at its next poll.
    for (const id of this.workerIds) boss.notifyWorker(id);
  }

  /** `concurrency` workers taking one build each; `handle` resolves when the build has ended. */
  async work(concurrency: number, handle: (data: BuildJobData) => Promise<void>): Promise<void> {
    const boss = await this.started();
    for (let i = 0; i < concurrency; i++) {
      const id = await boss.work<BuildJobData>(BUILD_QUEUE, { batchSize: 1, pollingIntervalSeconds: POLL_SECONDS }, async ([job]) => handle(job.data));
      this.workerIds.push(id);
    }
  }

  /** This process's builders take no more builds (the app is shutting down); the queued ones wait for another builder. */
  async stopWorking(): Promise<void> {
    const boss = await this.boss?.catch(() => undefined);
    for (const id of this.workerIds.splice(0)) await boss?.offWork({ id });
  }

  /** After the builders have ended their builds (Builder.onModuleDestroy), before the database pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    const boss = await this.boss?.catch(() => undefined);
    await boss?.stop({ graceful: true, timeout: 5000, close: false, wait: true });
  }

  private started(): Promise<PgBoss> {
    this.boss ??= this.start();
    return this.boss;
  }

  private async start(): Promise<PgBoss> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const boss = new PgBoss({
      db: { executeSql: (text, values) => pool.query(text, values) },
      schema: QUEUE_SCHEMA,
      // Builds are scheduled by nobody: no cron timers.
      schedule: false,
      supervise: true,
    });
    boss.on('error', (err) => this.logger.error(`queue: ${err.message}`));
    await boss.start();
    if (!(await boss.getQueue(BUILD_QUEUE))) await boss.createQueue(BUILD_QUEUE, { name: BUILD_QUEUE, policy: 'standard', retryLimit: 0 });
    return boss;
  }
}
