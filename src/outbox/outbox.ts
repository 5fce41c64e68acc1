import { randomString } from '../common/ids';

/** Sends one message; throws to have it retried later (OutboxGiveUp to end it without a retry). */
export type OutboxHandler = (payload: Record<string, unknown>, message: { id: string; attempts: number }) => Promise<void>;

/** How a kind's messages are retried and how many are sent at once. */
export interface OutboxKindOptions {
  /**
   * The waits after the 1st, 2nd… failed try; after the last one the message is dead.
   * Without it: retryDelayMs up to OUTBOX_MAX_ATTEMPTS tries.
   */
  retryDelaysMs?: readonly number[];
  /** Messages of this kind sent at once in one run (default 1, in order). */
  concurrency?: number;
  /**
   * A round's batch takes the due messages of different share keys (`enqueue`'s `shareKey`,
   * a webhook delivery's workspace) in turns: each key's oldest, then each key's second…;
   * messages queued without a key share one key. Without it a batch is the oldest due
   * messages, whoever queued them.
   */
  fairShare?: boolean;
}

/**
 * Thrown by a handler for a failure that retrying cannot mend (a receiver answering 410
 * Gone, an address the policy refuses): the message is marked dead at once.
 */
export class OutboxGiveUp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboxGiveUp';
  }
}

/** Outbox ids are internal (never in the API): `obx_` plus the usual random body. */
export const newOutboxId = () => `obx_${randomString(24)}`;

/**
 * When to try again after `attempts` failed tries: exponential from 1 s, capped at an
 * hour, with up to 20 % jitter so receivers that come back are not hit by every
 * message at once. `random` is injectable for tests.
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(3_600_000, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (1 + 0.2 * random()));
}

/**
 * The wait after `attempts` failed tries on a fixed schedule, with up to 10 % jitter
 * (a zero wait stays zero), or null when the schedule is used up and the message is dead.
 */
export function scheduledDelayMs(schedule: readonly number[], attempts: number, random: () => number = Math.random): number | null {
  if (attempts < 1 || attempts > schedule.length) return null;
  return Math.round(schedule[attempts - 1] * (1 + 0.1 * random()));
}
