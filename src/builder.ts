import 'reflect-metadata';

import { existsSync } from 'node:fs';

import { createApp } from './app.factory';
import { validateEnv } from './config/env.schema';

/**
 * `npm run builder`: builders alone, on this or another machine, against the same
 * PostgreSQL (DATABASE_URL, required: an embedded database would be this machine's
 * own) and storage as the API. No HTTP server: the process takes build jobs
 * (BUILD_CONCURRENCY at once, at least 1) until it gets SIGTERM or SIGINT, then ends
 * the builds it runs as failed ("the builder shut down") and exits.
 */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const env = validateEnv(process.env);
  if (!env.DATABASE_URL) {
    console.error('npm run builder needs DATABASE_URL: builders share the API’s PostgreSQL (and its storage settings)');
    process.exit(1);
  }
  const concurrency = String(Math.max(1, env.BUILD_CONCURRENCY));
  const { app } = await createApp({ env: { ...process.env, BUILD_CONCURRENCY: concurrency } });
  await app.init();
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main().catch((err: Error) => {
  console.error(`The builder did not start: ${err.message}`);
  process.exit(1);
});
