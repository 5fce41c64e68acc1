import { dailyCutoff, immediateBefore } from './digest-schedule';

describe('digest schedule', () => {
  it('the daily cutoff is today at the hour once it has passed, else yesterday at the hour', () => {
    expect(dailyCutoff(new Date('2026-03-10T09:30:00.000Z'), 8).toISOString()).toBe('2026-03-10T08:00:00.000Z');
    expect(dailyCutoff(new Date('2026-03-10T08:00:00.000Z'), 8).toISOString()).toBe('2026-03-10T08:00:00.000Z');
    expect(dailyCutoff(new Date('2026-03-10T07:59:59.999Z'), 8).toISOString()).toBe('2026-03-09T08:00:00.000Z');
    expect(dailyCutoff(new Date('2026-03-01T00:10:00.000Z'), 23).toISOString()).toBe('2026-02-28T23:00:00.000Z');
    expect(dailyCutoff(new Date('2026-03-01T00:10:00.000Z'), 0).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('an immediate digest is due once its first item is a window old', () => {
    expect(immediateBefore(new Date('2026-03-10T09:30:00.000Z'), 120).toISOString()).toBe('2026-03-10T09:28:00.000Z');
  });
});
