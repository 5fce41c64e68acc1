import { randomString } from '../common/ids';

/** Sends one message; throws to have it retried later. */
export type OutboxHandler = (payload: Record<string, unknown>, message: { id: string; attempts: number }) => Promise<void>;

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
