import { MAX_FLUSH_PAUSE_MS, nextFlushAt } from './flush-pacing';

describe('nextFlushAt', () => {
  it('lets a quick flush be followed at the next tick', () => {
    // 20 ms of flushing: 180 ms of pause, well within a 10-s interval.
    expect(nextFlushAt(1_000, 1_020)).toBe(1_200);
  });

  it('keeps a slow flush to a tenth of the time', () => {
    // 5 s of flushing (100,000 sites' rows): the next one no sooner than 45 s later.
    expect(nextFlushAt(10_000, 15_000)).toBe(60_000);
  });

  it('never waits longer than the cap', () => {
    expect(nextFlushAt(0, 60_000)).toBe(60_000 + MAX_FLUSH_PAUSE_MS);
  });

  it('treats a clock that went back as a flush that took no time', () => {
    expect(nextFlushAt(5_000, 4_000)).toBe(4_000);
  });
});
