import { iso, SystemClock } from './time';

describe('iso', () => {
  it('always carries milliseconds and Z', () => {
    expect(iso(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 0)))).toBe('2026-01-02T03:04:05.000Z');
    expect(iso(new Date(Date.UTC(2026, 10, 21, 23, 59, 59, 7)))).toBe('2026-11-21T23:59:59.007Z');
  });

  it('keeps null as null', () => {
    expect(iso(null)).toBeNull();
    expect(iso(undefined)).toBeNull();
  });

  it('matches the wire format for the system clock', () => {
    expect(iso(new SystemClock().now())).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe('SystemClock.nowMs', () => {
  it('is the current time in milliseconds', () => {
    const before = Date.now();
    const ms = new SystemClock().nowMs();
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now());
  });

  it('follows now() when a test moves the clock, and the system time again once restored', () => {
    const clock = new SystemClock();
    const later = new Date('2031-05-06T07:08:09.010Z');
    const spy = jest.spyOn(clock, 'now').mockReturnValue(later);
    expect(clock.nowMs()).toBe(later.getTime());
    spy.mockRestore();
    expect(Math.abs(clock.nowMs() - Date.now())).toBeLessThan(1000);
  });
});
