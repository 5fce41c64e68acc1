import { type DataSource } from 'typeorm';

import { ADVISORY_LOCKS } from './advisory-locks';

/**
 * Runs pending migrations under a PostgreSQL advisory lock, so several instances
 * starting together migrate once.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.migrations]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.migrations]);
    }
  } finally {
    await runner.release();
  }
}
