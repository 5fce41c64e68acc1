import { overLimits } from './billing-mails';

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
