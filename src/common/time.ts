export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** ISO 8601 UTC with milliseconds, the only timestamp form on the wire. */
export function iso(date: Date): string;
export function iso(date: Date | null | undefined): string | null;
export function iso(date: Date | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  return date.toISOString();
}

/** A clock that tests can move; production code asks it instead of `new Date()`. */
export abstract class Clock {
  abstract now(): Date;

  /** now() as milliseconds since the epoch. */
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }

  /**
   * Without a Date per call (half the cost of `new Date()`): the site router asks on every
   * answer. A test that moves the clock replaces now() on the instance (jest.spyOn), and
   * this then follows it.
   */
  override nowMs(): number {
    return this.now === SystemClock.prototype.now ? Date.now() : this.now().getTime();
  }
}
