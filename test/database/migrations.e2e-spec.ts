import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { dataSourceOptions } from '../../src/database/data-source-options';
import { runMigrationsLocked } from '../../src/database/migrator';
import { createEmptyDatabase } from '../helpers/database';

describe('Migrations (e2e)', () => {
  it('bring an empty database exactly to the entities’ schema', async () => {
    const db = await createEmptyDatabase();
    const ds = await new DataSource(dataSourceOptions(db.url, 2)).initialize();
    try {
      await runMigrationsLocked(ds);
      const pending = await ds.driver.createSchemaBuilder().log();
      // Anything here means an entity changed without a migration: run `npm run migration:generate`.
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });

  it('run once when several instances start together', async () => {
    const db = await createEmptyDatabase();
    const sources = await Promise.all([1, 2, 3].map(() => new DataSource(dataSourceOptions(db.url, 2)).initialize()));
    try {
      await Promise.all(sources.map((ds) => runMigrationsLocked(ds)));
      const rows = await sources[0].query('SELECT name, count(*)::int AS n FROM migrations GROUP BY name');
      for (const row of rows) expect(row.n).toBe(1);
      expect(rows.length).toBe(sources[0].migrations.length);
    } finally {
      await Promise.all(sources.map((ds) => ds.destroy()));
      await db.drop();
    }
  });
});
