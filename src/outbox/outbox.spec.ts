import { retryDelayMs, scheduledDelayMs } from './outbox';

describe('retryDelayMs', () => {
  it('doubles from one second', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, () => 0))).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('never waits more than an hour plus jitter, however many tries failed', () => {
    expect(retryDelayMs(40, () => 0)).toBe(3_600_000);
    expect(retryDelayMs(1000, () => 0.999)).toBeLessThanOrEqual(3_600_000 * 1.2);
  });

  it('adds at most 20 % jitter', () => {
    expect(retryDelayMs(3, () => 1)).toBe(4800);
    expect(retryDelayMs(3, () => 0.5)).toBe(4400);
  });
});

describe('scheduledDelayMs', () => {
  const schedule = [5_000, 300_000, 1_800_000];

  it('follows the schedule, one wait per failed try, with at most 10 % jitter', () => {
    expect([1, 2, 3].map((n) => scheduledDelayMs(schedule, n, () => 0))).toEqual([5_000, 300_000, 1_800_000]);
    expect(scheduledDelayMs(schedule, 1, () => 1)).toBe(5_500);
  });

  it('ends when the schedule is used up', () => {
    expect(scheduledDelayMs(schedule, 4, () => 0)).toBeNull();
  });
});
