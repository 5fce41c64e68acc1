import { type IdleState, idleSweepIntervalMs, idleVerdict } from './idle-connections';

describe('idleVerdict', () => {
  const fresh = (): IdleState => ({ progress: 0, since: 0 });

  it('restarts the idle clock whenever bytes moved, in either direction', () => {
    const state = fresh();
    expect(idleVerdict(state, 900, 120, true, 1000)).toBe('moving');
    expect(state).toEqual({ progress: 120, since: 900 });
    expect(idleVerdict(state, 1800, 120, true, 1000)).toBe('wait');
    expect(idleVerdict(state, 1900, 120, true, 1000)).toBe('idle_request');
  });

  it('tells of an idle request once per idle period, as a socket timeout fires again', () => {
    const state = fresh();
    expect(idleVerdict(state, 1000, 0, true, 1000)).toBe('idle_request');
    expect(idleVerdict(state, 1500, 0, true, 1000)).toBe('wait');
    expect(idleVerdict(state, 2000, 0, true, 1000)).toBe('idle_request');
  });

  it('leaves a connection without a request under way to Node (its headersTimeout and keepAliveTimeout)', () => {
    const state: IdleState = { progress: 500, since: 0 };
    expect(idleVerdict(state, 60_000, 500, false, 1000)).toBe('wait');
  });
});

describe('idleSweepIntervalMs', () => {
  it('looks four times per idle timeout, at most every 50 ms and at least every second', () => {
    expect(idleSweepIntervalMs(1000)).toBe(250);
    expect(idleSweepIntervalMs(30_000)).toBe(1000);
    expect(idleSweepIntervalMs(100)).toBe(50);
  });
});
