import { type BeforeApplicationShutdown, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';

/**
 * Work a request starts but must not wait for. A failed sign-in's audit entry is written
 * only for an existing account: answered after it, a wrong password took longer than a
 * wrong email and told a guesser which emails have accounts. The work starts once the
 * answer is on its way (the next turn of the event loop), a failure is logged, not
 * thrown, and shutdown waits for what is under way before the database closes. A
 * crash in between loses it, as it would lose the answer; so may the work of a request
 * still answered while the HTTP server drains, after the last wait (its failure is logged).
 */
@Injectable()
export class DeferredWork implements OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeferredWork.name);
  private readonly pending = new Set<Promise<void>>();

  run(label: string, work: () => Promise<unknown>): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .then(
        () => undefined,
        (err: unknown) => this.logger.error(`${label} failed: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /**
   * Resolves when everything started until now, and whatever that started, has ended; at
   * most `passes` rounds of it, so a stream of new work (failed sign-ins while the
   * server drains) cannot hold a shutdown for ever.
   */
  async settled(passes = 10): Promise<void> {
    for (let pass = 0; pass < passes && this.pending.size > 0; pass++) await Promise.all([...this.pending]);
  }

  /**
   * Shutdown waits here and again before the HTTP server closes (requests keep coming until
   * then); Nest closes TypeORM's DataSource only in onApplicationShutdown, after both.
   */
  async onModuleDestroy(): Promise<void> {
    await this.settled();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.settled();
  }
}
