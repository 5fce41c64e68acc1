import 'reflect-metadata';

import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DataSource } from 'typeorm';

import { dataSourceOptions } from '../src/database/data-source-options';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrationsLocked } from '../src/database/migrator';
import { compileCli, COMPILED_CLI_ENV } from './helpers/compiled-cli';
import { TEMPLATE_DATABASE, urlFor, withAdmin } from './helpers/database';
import { freePort } from './helpers/ports';
import { RESPONSE_LOG_DIR_ENV } from './helpers/response-recorder';

/**
 * scripts/build.js's buildWeb (Vite, only when web/ changed) in a child process, so it runs
 * while PostgreSQL starts and the template migrates instead of before (both mostly wait).
 */
function buildWebAside(): Promise<void> {
  const script = `require(${JSON.stringify(join(__dirname, '..', 'scripts', 'build.js'))}).buildWeb({ quiet: true })`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`build of the dashboard failed (${signal ?? `exit ${code}`})`))));
  });
}

/**
 * Starts one PostgreSQL for the whole run (or uses DATABASE_URL, e.g. a stock
 * server in CI), and migrates a template database that each test file clones.
 */
export default async function globalSetup(): Promise<void> {
  // The dashboard is built once here, before test files run two at a time: two files
  // building it at once would empty dist/web under each other. Their own checks are then no-ops.
  const web = buildWebAside();
  // Awaited below in any case: an unhandled rejection while PostgreSQL starts would end jest without the reason.
  web.catch(() => undefined);
  process.env[COMPILED_CLI_ENV] = compileCli();
  let admin = process.env.DATABASE_URL;
  if (!admin) {
    const dir = await mkdtemp(join(tmpdir(), 'statichost-test-pg-'));
    const embedded = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres' });
    (globalThis as { __embeddedPostgres?: typeof embedded }).__embeddedPostgres = embedded;
    admin = embedded.url;
    // The run's throwaway cluster need not survive a power cut: no flush to disk on every
    // commit (a third of a write's time here). Only the server started here: a DATABASE_URL
    // server is someone else's. A process crash loses nothing either way.
    await withAdmin(async (c) => {
      for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await c.query(`ALTER SYSTEM SET ${setting} = off`);
      await c.query('SELECT pg_reload_conf()');
    }, admin);
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
  await web;
}
