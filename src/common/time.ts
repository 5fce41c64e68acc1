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
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
