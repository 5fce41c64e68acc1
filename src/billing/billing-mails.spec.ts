import { bandwidthLimitNote, overLimits } from './billing-mails';

describe('overLimits', () => {
  it('names what a smaller plan no longer allows, and nothing when all fits', () => {
    expect(overLimits({ projects: 5, storageBytes: 2 * 1024 ** 3 }, { projects: 3, storageBytes: 500 * 1024 ** 2 }, 'free')).toEqual([
      '5 projects (the free plan allows 3)',
      '2 GB stored (the free plan allows 500 MB)',
    ]);
    expect(overLimits({ projects: 3, storageBytes: 10 }, { projects: 3, storageBytes: 10 }, 'free')).toEqual([]);
    expect(overLimits({ projects: 300, storageBytes: 10 }, { projects: null, storageBytes: null }, 'team')).toEqual([]);
  });
});

describe('bandwidthLimitNote', () => {
  it('says deploys are refused in every case, and overage billed only where it is', () => {
    for (const [capped, billed] of [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ]) {
      expect(bandwidthLimitNote(capped, billed)).toContain('New deploys are refused (402)');
    }
    expect(bandwidthLimitNote(true, true)).toContain('paused (they answer 503)');
    expect(bandwidthLimitNote(false, true)).toContain('billed as overage on the next invoice');
    expect(bandwidthLimitNote(false, false)).not.toContain('overage');
  });
});
