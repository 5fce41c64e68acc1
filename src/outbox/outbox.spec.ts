import { retryDelayMs } from './outbox';

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
