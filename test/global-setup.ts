import 'reflect-metadata';

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { dataSourceOptions } from '../src/database/data-source-options';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrationsLocked } from '../src/database/migrator';
import { TEMPLATE_DATABASE, urlFor, withAdmin } from './helpers/database';
import { freePort } from './helpers/ports';
import { RESPONSE_LOG_DIR_ENV } from './helpers/response-recorder';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS build script, not a module of the app
const { buildWeb } = require('../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * Starts one PostgreSQL for the whole run (or uses DATABASE_URL, e.g. a stock
 * server in CI), and migrates a template database that each test file clones.
 */
export default async function globalSetup(): Promise<void> {
  // The dashboard is built once here, before test files run two at a time: two files
  // building it at once would empty dist/web under each other. Their own checks are then no-ops.
  buildWeb({ quiet: true });
  let admin = process.env.DATABASE_URL;
  if (!admin) {
    const dir = await mkdtemp(join(tmpdir(), 'statichost-test-pg-'));
    const embedded = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres' });
    (globalThis as { __embeddedPostgres?: typeof embedded }).__embeddedPostgres = embedded;
    admin = embedded.url;
  }
  process.env.TEST_DATABASE_ADMIN_URL = admin;
  // Where test apps record their answers, for the check against the OpenAPI document in global-teardown.ts.
  process.env[RESPONSE_LOG_DIR_ENV] = await mkdtemp(join(tmpdir(), 'statichost-test-responses-'));
  // Tests choose their database explicitly; never let the app fall back to DATABASE_URL.
  delete process.env.DATABASE_URL;

  await withAdmin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  }, admin);
  const ds = await new DataSource(dataSourceOptions(urlFor(TEMPLATE_DATABASE, admin), 2)).initialize();
  try {
    await runMigrationsLocked(ds);
  } finally {
    await ds.destroy();
  }
}
