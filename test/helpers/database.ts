import { randomBytes } from 'node:crypto';

import { Client } from 'pg';

/** The server the tests use: set by global-setup (embedded) or taken from DATABASE_URL. */
export function adminUrl(): string {
  const url = process.env.TEST_DATABASE_ADMIN_URL;
  if (!url) throw new Error('TEST_DATABASE_ADMIN_URL is unset: run the e2e tests through jest (global-setup starts PostgreSQL)');
  return url;
}

export function urlFor(database: string, base = adminUrl()): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdmin<T>(work: (client: Client) => Promise<T>, url = adminUrl()): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export const TEMPLATE_DATABASE = 'statichost_test_template';

/** A fresh database, cloned from the migrated template: one per test file. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `statichost_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  return {
    name,
    url: urlFor(name),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** An empty database with no migrations applied (for migration tests). */
export async function createEmptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `statichost_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: urlFor(name),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
