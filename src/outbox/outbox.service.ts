import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { BoundedConcurrency } from '../common/bounded-concurrency';
import { type JobReport, PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { newOutboxId, OutboxGiveUp, type OutboxHandler, type OutboxKindOptions, retryDelayMs, scheduledDelayMs } from './outbox';
import { type DueMessage, type OutboxBacklog, OutboxRepository } from './outbox.repository';

/** How long a message given up on is kept for inspection. */
export const DEAD_KEPT_MS = 30 * 86_400_000;
const BATCH = 50;
/**
 * A round starts no new message after this long (the rest wait for the next round): the
 * lock keeps rounds from overlapping, so one kind's slow receivers (15 s each, 50 queued)
 * would otherwise hold every other kind's next round — a password-reset mail — for minutes.
 */
export const ROUND_BUDGET_MS = 5_000;
/**
 * A fair kind's round looks at up to this many share keys with due messages, walking past at
 * most TURN_KEYS_WALKED keys (OutboxRepository.dueInTurns): more workspaces with due
 * messages, or with retries waiting, take turns across rounds.
 */
const TURN_DUE_KEYS_PER_ROUND = 1_000;
const TURN_KEYS_WALKED = 10_000;

export interface OutboxReport extends JobReport {
  delivered: number;
  failed: number;
  dead: number;
}

/**
 * Sends queued messages through the handler of their kind. One instance at a time
 * sends (advisory lock), so a message goes out once even with many instances; a
 * message is marked delivered only after its handler succeeded, so a crash between
 * the two sends it again (at least once: every payload carries its id for receivers
 * to drop a repeat). A failed message waits retryDelayMs (or its kind's own schedule);
 * after OUTBOX_MAX_ATTEMPTS (or the schedule's end) it is marked dead and kept for the
 * operator. Each kind is sent apart from the others, at its own concurrency, so a slow
 * webhook receiver holds up its own kind's batch, not the mail.
 */
@Injectable()
export class OutboxService extends PeriodicJob<OutboxReport> {
  private readonly handlers = new Map<string, { handler: OutboxHandler; options: OutboxKindOptions }>();
  /** Fair kind → the share key after which the next round's walk of keys starts. */
  private readonly turnsAfter = new Map<string, string>();

  constructor(
    dataSource: DataSource,
    private readonly messages: OutboxRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(OutboxService.name, config.OUTBOX_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.outbox });
  }

  /**
   * Every registered kind's queue now (/metrics reads it at each scrape), with zeros when
   * nothing is queued: an alert on a missing series never fires.
   */
  async backlog(): Promise<OutboxBacklog[]> {
    const rows = new Map((await this.messages.backlog(this.clock.now())).map((r) => [r.kind, r]));
    for (const kind of this.handlers.keys()) if (!rows.has(kind)) rows.set(kind, { kind, due: 0, waiting: 0, dead: 0, oldestDueSeconds: 0 });
    return [...rows.values()].sort((a, b) => a.kind.localeCompare(b.kind));
  }

  /** Modules register the sender of their kind at start-up. */
  register(kind: string, handler: OutboxHandler, options: OutboxKindOptions = {}): void {
    this.handlers.set(kind, { handler, options });
  }

  /**
   * Queues a message inside the caller's transaction: it is sent only if that
   * transaction commits, and it survives a crash or restart until it is sent. `shareKey`:
   * whose sending time it spends, for a kind registered with `fairShare`.
   */
  async enqueue(manager: EntityManager, kind: string, payload: Record<string, unknown>, now: Date, shareKey: string | null = null): Promise<string> {
    const id = newOutboxId();
    await this.messages.insert(manager, id, kind, payload, now, shareKey);
    return id;
  }

  async runOnce(): Promise<OutboxReport> {
    return (await this.trigger()) ?? { ran: false, delivered: 0, failed: 0, dead: 0 };
  }

  protected async work(): Promise<OutboxReport> {
    const report: OutboxReport = { ran: true, delivered: 0, failed: 0, dead: 0 };
    await allEnded([...this.handlers.keys()].map((kind) => this.sendKind(kind, report)));
    await this.purgeDelivered();
    return report;
  }

  private async sendKind(kind: string, report: OutboxReport): Promise<void> {
    const { options } = this.handlers.get(kind)!;
    const due = options.fairShare ? await this.dueInTurns(kind) : await this.messages.due(this.clock.now(), [kind], BATCH);
    const limit = new BoundedConcurrency(Math.max(1, options.concurrency ?? 1), Number.MAX_SAFE_INTEGER);
    const started = performance.now();
    await allEnded(
      due.map((message) =>
        limit.run(async () => {
          // Past the budget a message stays due, untouched, for the next round.
          if (performance.now() - started > ROUND_BUDGET_MS) return;
          await this.sendOne(message, report);
        }),
      ),
    );
  }

  /**
   * A fair kind's batch; the next round's walk of share keys goes on after this one's last
   * (OutboxRepository.dueInTurns). Kept per instance: another instance taking the rounds
   * over starts its walk at the first key, which only matters past TURN_DUE_KEYS_PER_ROUND keys.
   */
  private async dueInTurns(kind: string): Promise<DueMessage[]> {
    const { messages, walkedTo } = await this.messages.dueInTurns(
      this.clock.now(),
      kind,
      BATCH,
      this.turnsAfter.get(kind) ?? '',
      TURN_DUE_KEYS_PER_ROUND,
      TURN_KEYS_WALKED,
    );
    this.turnsAfter.set(kind, walkedTo ?? '');
    return messages;
  }

  private async sendOne(message: DueMessage, report: OutboxReport): Promise<void> {
    const { handler, options } = this.handlers.get(message.kind)!;
    const attempts = message.attempts + 1;
    try {
      await handler(message.payload, { id: message.id, attempts });
      await this.messages.markDelivered(message.id, attempts, this.clock.now());
      report.delivered++;
    } catch (err) {
      const error = String((err as Error).message ?? err).slice(0, 500);
      const now = this.clock.now();
      const wait = options.retryDelaysMs
        ? scheduledDelayMs(options.retryDelaysMs, attempts)
        : attempts >= this.config.OUTBOX_MAX_ATTEMPTS
          ? null
          : retryDelayMs(attempts);
      const dead = err instanceof OutboxGiveUp || wait === null;
      await this.messages.markFailed(message.id, attempts, error, new Date(now.getTime() + (wait ?? 0)), dead ? now : null);
      if (dead) {
        report.dead++;
        this.logger.error(`${message.kind} message ${message.id} is dead after ${attempts} attempts: ${error}`);
      } else {
        report.failed++;
        this.logger.warn(`${message.kind} message ${message.id} failed (attempt ${attempts}), retrying: ${error}`);
      }
    }
  }

  /**
   * Delivered messages are kept a day for inspection, dead ones 30 days (as webhook
   * deliveries are): long enough to see what failed, not forever (a dead mail's payload holds
   * its address and links).
   */
  private async purgeDelivered(): Promise<void> {
    const now = this.clock.now().getTime();
    await this.messages.purgeBefore(new Date(now - 86_400_000), new Date(now - DEAD_KEPT_MS));
  }
}

/**
 * Waits for every send to end before failing with the first error. The round holds the
 * outbox's lock until it returns: ending it at the first error (a database hiccup recording
 * one message) would let another round take the lock and send again the messages still in
 * flight, which are not marked yet.
 */
async function allEnded(work: Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
