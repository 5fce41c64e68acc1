import { crossedThresholds } from './usage-thresholds';

describe('crossedThresholds', () => {
  it('names 80 % when a change reaches it, and 100 % when it reaches the limit', () => {
    expect(crossedThresholds(7, 8, 10)).toEqual([80]);
    expect(crossedThresholds(9, 10, 10)).toEqual([100]);
  });

  it('names both when one change jumps past both', () => {
    expect(crossedThresholds(0, 100, 100)).toEqual([80, 100]);
  });

  it('names none below 80 %, above a threshold already passed, or for a change that does not grow', () => {
    expect(crossedThresholds(1, 2, 10)).toEqual([]);
    expect(crossedThresholds(8, 9, 10)).toEqual([]);
    expect(crossedThresholds(10, 11, 10)).toEqual([]);
    expect(crossedThresholds(8, 8, 10)).toEqual([]);
  });

  it('rounds a threshold that is not a whole count up: 80 % of 7 is reached at the 6th', () => {
    expect(crossedThresholds(4, 5, 7)).toEqual([]);
    expect(crossedThresholds(5, 6, 7)).toEqual([80]);
  });

  it('names none for an unlimited plan or a zero limit', () => {
    expect(crossedThresholds(0, 1_000_000, null)).toEqual([]);
    expect(crossedThresholds(0, 1, 0)).toEqual([]);
  });
});
