import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { createApp } from './app.factory';
import { createLogger } from './common/logging';
import { validateEnv } from './config/env.schema';
import { EmbeddedPostgresHandle, startEmbeddedPostgres } from './database/embedded-postgres';

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
    embedded = await startEmbeddedPostgres({ dataDir: env.DATA_DIR, port: env.EMBEDDED_POSTGRES_PORT, logger });
    overrides.DATABASE_URL = embedded.url;
  }

  const { app, config } = await createApp({ env: overrides });
  await app.listen(config.PORT, config.HOST);
  logger.info({ port: config.PORT, sites: config.siteUrl('<slug>') }, `listening on http://localhost:${config.PORT} (docs at /docs)`);

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
