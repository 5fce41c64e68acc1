import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';

/**
 * Work a request starts but must not wait for. A failed sign-in's audit entry is written
 * only for an existing account: answered after it, a wrong password took longer than a
 * wrong email and told a guesser which emails have accounts. The work starts once the
 * answer is on its way (the next turn of the event loop), a failure is logged, not
 * thrown, and shutdown waits for what is under way before the database closes
 * (onModuleDestroy runs before TypeORM's onApplicationShutdown). A crash in between
 * loses it, as it would lose the answer.
 */
@Injectable()
export class DeferredWork implements OnModuleDestroy {
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

  /** Resolves when everything started until now, and whatever that started, has ended. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async onModuleDestroy(): Promise<void> {
    await this.settled();
  }
}
