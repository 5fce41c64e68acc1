import { Client } from 'pg';

import type { TestApp } from './app';
import { eventually } from './eventually';

/**
 * Another instance in the middle of a change: a transaction on its own connection that holds
 * the row lock of `table`'s row `id` (FOR UPDATE) while `change` runs, and commits on
 * `commit()`. A request started meanwhile that needs the row waits for it (see someoneWaits).
 */
export async function changeUnderLock(
  t: TestApp,
  table: 'workspaces' | 'projects',
  id: string,
  change: (c: Client) => Promise<unknown>,
): Promise<{ commit: () => Promise<void> }> {
  const other = new Client({ connectionString: t.databaseUrl });
  await other.connect();
  try {
    await other.query('BEGIN');
    await other.query(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE`, [id]);
    await change(other);
  } catch (err) {
    await other.end();
    throw err;
  }
  return {
    commit: async () => {
      await other.query('COMMIT');
      await other.end();
    },
  };
}

/** Resolves once some session of the test's database waits for a lock (the request queued behind changeUnderLock). */
export const someoneWaits = (t: TestApp): Promise<void> =>
  eventually(async () => {
    const waiting = await t.dataSource.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    if (waiting.length === 0) throw new Error('no request waits for a lock yet');
  });
