import { type DataSource } from 'typeorm';

/** Any constant: the advisory lock that lets one instance migrate while others wait. */
const MIGRATION_LOCK = 7_461_002;

/**
 * Runs pending migrations under a PostgreSQL advisory lock, so several instances
 * starting together migrate once.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
