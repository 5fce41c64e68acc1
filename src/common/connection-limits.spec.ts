import {
  ASSUMED_OPEN_FILE_LIMIT,
  checkingIntervalMs,
  defaultMaxConnections,
  LOOPBACK_RESERVE,
  parseOpenFileLimit,
  readOpenFileLimit,
} from './connection-limits';

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

describe('parseOpenFileLimit', () => {
  const limits = (openFiles: string) =>
    [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max processes             127431               127431               processes ',
      `Max open files            ${openFiles}               files     `,
      'Max locked memory         8388608              8388608              bytes     ',
    ].join('\n');

  it('reads the soft limit, not the hard one', () => {
    expect(parseOpenFileLimit(limits('20000                1048576'))).toBe(20_000);
  });

  it('reads unlimited as Infinity and knows when the line is missing', () => {
    expect(parseOpenFileLimit(limits('unlimited            unlimited'))).toBe(Infinity);
    expect(parseOpenFileLimit('Max processes 1 1 processes')).toBeUndefined();
    expect(parseOpenFileLimit(limits('garbage              1'))).toBeUndefined();
  });

  it('reads this process’s own limit on Linux', () => {
    if (process.platform !== 'linux') return;
    expect(readOpenFileLimit()).toBeGreaterThan(0);
  });
});

describe('defaultMaxConnections', () => {
  it('leaves a quarter of the descriptors, at least 256, and the loopback reserve', () => {
    expect(defaultMaxConnections(20_000)).toBe(20_000 - 5000 - LOOPBACK_RESERVE);
    expect(defaultMaxConnections(1024)).toBe(1024 - 256 - LOOPBACK_RESERVE);
  });

  it('assumes the usual 1024 when the limit is unknown, and stays sane at the extremes', () => {
    expect(defaultMaxConnections(undefined)).toBe(defaultMaxConnections(ASSUMED_OPEN_FILE_LIMIT));
    expect(defaultMaxConnections(100)).toBe(1);
    expect(defaultMaxConnections(Infinity)).toBe(1_000_000);
  });

  it('always stays below the limit itself', () => {
    for (const limit of [300, 1024, 4096, 65_536, 1_048_576]) expect(defaultMaxConnections(limit) + LOOPBACK_RESERVE).toBeLessThan(limit);
  });
});
