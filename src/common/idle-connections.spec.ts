import { type ConnectionLook, type IdleState, idleSweepIntervalMs, idleVerdict } from './idle-connections';

describe('idleVerdict', () => {
  const fresh = (): IdleState => ({ progress: 0, since: 0, inRequest: true });
  const limits = { idleMs: 1000, keepAliveMs: 3000 };
  const request = (progress: number): ConnectionLook => ({ progress, inRequest: true, answered: false });
  const between = (progress: number): ConnectionLook => ({ progress, inRequest: false, answered: true });

  it('restarts the idle clock whenever bytes moved, in either direction', () => {
    const state = fresh();
    expect(idleVerdict(state, 900, request(120), limits)).toBe('moving');
    expect(state).toEqual({ progress: 120, since: 900, inRequest: true });
    expect(idleVerdict(state, 1800, request(120), limits)).toBe('wait');
    expect(idleVerdict(state, 1900, request(120), limits)).toBe('idle_request');
  });

  it('tells of an idle request once per idle period, as a socket timeout fires again', () => {
    const state = fresh();
    expect(idleVerdict(state, 1000, request(0), limits)).toBe('idle_request');
    expect(idleVerdict(state, 1500, request(0), limits)).toBe('wait');
    expect(idleVerdict(state, 2000, request(0), limits)).toBe('idle_request');
  });

  it('ends a connection that answered and sent no next request for the keep-alive timeout', () => {
    const state: IdleState = { progress: 500, since: 0, inRequest: false };
    expect(idleVerdict(state, 2999, between(500), limits)).toBe('wait');
    expect(idleVerdict(state, 3000, between(500), limits)).toBe('idle_keep_alive');
  });

  it('starts the keep-alive wait when the answer finishes, however long ago its last bytes were queued', () => {
    const state: IdleState = { progress: 500, since: 0, inRequest: true };
    // A slow reader: the answer's bytes were all queued at 0, it finished at 10 s.
    expect(idleVerdict(state, 10_000, between(500), limits)).toBe('moving');
    expect(idleVerdict(state, 12_999, between(500), limits)).toBe('wait');
    expect(idleVerdict(state, 13_000, between(500), limits)).toBe('idle_keep_alive');
  });

  it('restarts the keep-alive clock when the next request starts arriving', () => {
    const state: IdleState = { progress: 500, since: 0, inRequest: false };
    expect(idleVerdict(state, 2500, between(540), limits)).toBe('moving');
    expect(idleVerdict(state, 5000, between(540), limits)).toBe('wait');
    expect(idleVerdict(state, 5500, between(540), limits)).toBe('idle_keep_alive');
  });

  it('leaves a connection that never sent a request to Node (its headersTimeout)', () => {
    const state: IdleState = { progress: 20, since: 0, inRequest: false };
    expect(idleVerdict(state, 60_000, { progress: 20, inRequest: false, answered: false }, limits)).toBe('wait');
  });
});

describe('idleSweepIntervalMs', () => {
  it('looks four times per shorter limit, at most every 50 ms and at least every second', () => {
    expect(idleSweepIntervalMs({ idleMs: 1000, keepAliveMs: 5000 })).toBe(250);
    expect(idleSweepIntervalMs({ idleMs: 30_000, keepAliveMs: 2000 })).toBe(500);
    expect(idleSweepIntervalMs({ idleMs: 30_000, keepAliveMs: 5000 })).toBe(1000);
    expect(idleSweepIntervalMs({ idleMs: 100, keepAliveMs: 100 })).toBe(50);
  });
});
