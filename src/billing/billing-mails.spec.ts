import { bandwidthLimitNote, overLimits } from './billing-mails';

describe('overLimits', () => {
  it('names what a smaller plan no longer allows, and nothing when all fits', () => {
    expect(overLimits({ projects: 5, storageBytes: 2 * 1024 ** 3 }, { projects: 3, storageBytes: 500 * 1024 ** 2 }, 'free')).toEqual([
      '5 projects (the free plan allows 3)',
      '2 GB stored (the free plan allows 500 MB)',
    ]);
    expect(overLimits({ projects: 3, storageBytes: 10 }, { projects: 3, storageBytes: 10 }, 'free')).toEqual([]);
    expect(overLimits({ projects: 300, storageBytes: 10 }, { projects: null, storageBytes: null }, 'team')).toEqual([]);
    // The month's bandwidth at or past the smaller plan's: deploys wait for it too.
    expect(
      overLimits(
        { projects: 1, storageBytes: 10, bandwidthBytes: 150 * 1024 ** 3 },
        { projects: 3, storageBytes: null, bandwidthBytesPerMonth: 100 * 1024 ** 3 },
        'free',
      ),
    ).toEqual(['150 GB served this month (the free plan includes 100 GB a month)']);
    expect(overLimits({ projects: 1, storageBytes: 10, bandwidthBytes: 99 }, { projects: 3, storageBytes: null, bandwidthBytesPerMonth: 100 }, 'free')).toEqual(
      [],
    );
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
