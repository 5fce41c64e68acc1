import { checkingIntervalMs } from './connection-limits';

describe('checkingIntervalMs', () => {
  it('checks every second for the default timeouts, not every 30 s as Node would', () => {
    expect(checkingIntervalMs({ headersMs: 20_000, requestMs: 120_000 })).toBe(1000);
  });

  it('checks often enough to honour short timeouts, but not more than every 100 ms', () => {
    expect(checkingIntervalMs({ headersMs: 1000, requestMs: 2000 })).toBe(100);
    expect(checkingIntervalMs({ headersMs: 5000, requestMs: 5000 })).toBe(500);
    expect(checkingIntervalMs({ headersMs: 100, requestMs: 100 })).toBe(100);
  });
});
