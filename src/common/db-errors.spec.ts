import { QueryFailedError } from 'typeorm';

import { isDatabaseUnavailable } from './db-errors';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('is true for a server that is gone, restarting or shutting down', () => {
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P03', 'the database system is starting up'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('08006'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]))).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], withCode('57P01')))).toBe(true);
  });

  it('is false for statements that failed and for anything else', () => {
    expect(isDatabaseUnavailable(new QueryFailedError('INSERT', [], withCode('23505')))).toBe(false);
    expect(isDatabaseUnavailable(withCode('42P01'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    // An S3 request that could not connect (AWS SDK errors carry $metadata).
    expect(isDatabaseUnavailable(Object.assign(withCode('ECONNREFUSED'), { $metadata: { attempts: 3 } }))).toBe(false);
  });
});
