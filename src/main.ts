import 'reflect-metadata';

import { existsSync } from 'node:fs';

import { createApp } from './app.factory';
import { createLogger } from './common/logging';
import { validateEnv } from './config/env.schema';
import { startupNotes } from './config/startup-notes';
import { EmbeddedPostgresError, type EmbeddedPostgresHandle, startEmbeddedPostgres } from './database/embedded-postgres';

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let env;
  try {
    env = validateEnv(process.env);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const logger = createLogger(env.LOG_LEVEL);

  let embedded: EmbeddedPostgresHandle | undefined;
  const overrides: Record<string, string> = {};
  if (!env.DATABASE_URL) {
    logger.info({ dataDir: env.DATA_DIR, port: env.EMBEDDED_POSTGRES_PORT }, 'DATABASE_URL is unset: starting embedded PostgreSQL');
    try {
      embedded = await startEmbeddedPostgres({
        dataDir: env.DATA_DIR,
        port: env.EMBEDDED_POSTGRES_PORT,
        runtimeDir: env.EMBEDDED_POSTGRES_RUNTIME_DIR,
        logger,
      });
    } catch (err) {
      // One line that says what to do; the stack of a start-up failure helps nobody.
      console.error(err instanceof EmbeddedPostgresError ? err.message : `The embedded PostgreSQL did not start: ${(err as Error).message}`);
      process.exit(1);
    }
    overrides.DATABASE_URL = embedded.url;
    // While it is down the API answers 503 and cached sites keep serving; when restarts give up, exit
    // non-zero so a supervisor starts everything again.
    embedded.events.on('fatal', (err: Error) => {
      logger.fatal({ component: 'embedded-postgres' }, err.message);
      console.error(err.message);
      process.exit(1);
    });
  }

  const { app, config } = await createApp({ env: overrides });
  await app.listen(config.PORT, config.HOST);
  logger.info({ port: config.PORT, sites: config.siteUrl('<slug>') }, `listening on http://localhost:${config.PORT} (docs at /docs)`);
  for (const note of startupNotes(config)) logger.info(note);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    try {
      await app.close();
      await embedded?.stop();
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exitCode = 1;
    }
    process.exit();
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
