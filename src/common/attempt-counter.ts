import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';

/** Table of the shared attempt counters (created by a migration), so every instance counts together. */
export const GATE_LIMITS_TABLE = 'gate_rate_limits';

/**
 * A counter of `points` per key and `durationSeconds` window in GATE_LIMITS_TABLE: the
 * gates' attempts, lead captures and the account endpoints' throttles all count there,
 * each under its own key prefix.
 */
export function attemptCounter(dataSource: DataSource, keyPrefix: string, points: number, durationSeconds: number): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: dataSource,
    storeType: 'typeorm',
    tableName: GATE_LIMITS_TABLE,
    tableCreated: true,
    keyPrefix,
    points,
    duration: durationSeconds,
    // Expired rows are purged once, by GateAttemptsPurge (FOR UPDATE SKIP LOCKED): each
    // limiter's own unguarded DELETE every 5 minutes could deadlock with a request's upsert.
    clearExpiredByTimeout: false,
  });
}
