import { crossedThresholds } from './usage-thresholds';

describe('crossedThresholds', () => {
  it('names 50 % and 75 % when a change reaches them, and 100 % when it reaches the limit', () => {
    expect(crossedThresholds(4, 5, 10)).toEqual([50]);
    expect(crossedThresholds(7, 8, 10)).toEqual([75]);
    expect(crossedThresholds(9, 10, 10)).toEqual([100]);
  });

  it('names every threshold one change jumps past', () => {
    expect(crossedThresholds(0, 100, 100)).toEqual([50, 75, 100]);
    expect(crossedThresholds(60, 100, 100)).toEqual([75, 100]);
  });

  it('names none below 50 %, above a threshold already passed, or for a change that does not grow', () => {
    expect(crossedThresholds(1, 2, 10)).toEqual([]);
    expect(crossedThresholds(5, 6, 10)).toEqual([]);
    expect(crossedThresholds(10, 11, 10)).toEqual([]);
    expect(crossedThresholds(8, 8, 10)).toEqual([]);
  });

  it('rounds a threshold that is not a whole count up: 75 % of 7 is reached at the 6th', () => {
    expect(crossedThresholds(4, 5, 7)).toEqual([]);
    expect(crossedThresholds(5, 6, 7)).toEqual([75]);
  });

  it('names none for an unlimited plan or a zero limit', () => {
    expect(crossedThresholds(0, 1_000_000, null)).toEqual([]);
    expect(crossedThresholds(0, 1, 0)).toEqual([]);
  });
});
