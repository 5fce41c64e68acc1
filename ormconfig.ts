/**
 * The data source the TypeORM CLI uses (`npm run migration:generate|run|revert`).
 * With DATABASE_URL unset it starts the same embedded PostgreSQL as `npm start`.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { validateEnv } from './src/config/env.schema';
import { dataSourceOptions } from './src/database/data-source-options';
import { startEmbeddedPostgres } from './src/database/embedded-postgres';

async function create(): Promise<DataSource> {
  const env = validateEnv(process.env);
  let url = env.DATABASE_URL;
  if (!url) {
    const embedded = await startEmbeddedPostgres({ dataDir: env.DATA_DIR, port: env.EMBEDDED_POSTGRES_PORT });
    url = embedded.url;
    process.once('beforeExit', () => void embedded.stop());
  }
  return new DataSource(dataSourceOptions(url));
}

export const dataSource = create();
