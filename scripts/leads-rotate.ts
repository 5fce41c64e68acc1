/**
 * `npm run leads:rotate` (in a built image: `node dist/scripts/leads-rotate.js`):
 * re-encrypts every lead and form submission, the builds' access tokens, webhook secrets and environment
 * variables, outgoing webhooks' signing secrets and logged bodies, TOTP secrets and SSO client secrets, under
 * the first key of LEADS_ENCRYPTION_KEYS and, after
 * LEADS_INDEX_KEY changed, recomputes the blind indexes. Safe to run while the app
 * serves, to interrupt (Ctrl-C stops after the current batch) and to run again.
 *
 * Reads the same configuration as the app (.env, then the environment); with
 * DATABASE_URL unset it starts the embedded PostgreSQL under DATA_DIR, as `npm start`
 * does (stop the app first in that case: one embedded server per data directory).
 *
 *   --batch-size <n>   leads per transaction (default 500)
 */
import 'reflect-metadata';

import { existsSync } from 'node:fs';

import pino from 'pino';
import { DataSource } from 'typeorm';

import { TOTP_SEALED_COLUMNS } from '../src/auth/two-factor/totp-seals';
import { createLogger } from '../src/common/logging';
import { validateEnv } from '../src/config/env.schema';
import { dataSourceOptions } from '../src/database/data-source-options';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrationsLocked } from '../src/database/migrator';
import { resealRows } from '../src/database/reseal-rows';
import { rotateSubmissions } from '../src/forms/submissions-rotation';
import { rotateGitSecrets } from '../src/git/git-rotation';
import { LeadsKeyring } from '../src/leads/keyring';
import { rotateLeads } from '../src/leads/leads-rotation';
import { keyringRowCipher } from '../src/leads/secret-sealer';
import { SSO_SEALED_COLUMNS } from '../src/sso/sso-seals';
import { WEBHOOK_SEALED_COLUMNS } from '../src/webhooks/webhook-seals';

function batchSizeArg(argv: string[]): number | undefined {
  const at = argv.indexOf('--batch-size');
  if (at === -1) return undefined;
  const n = Number(argv[at + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new Error('--batch-size must be an integer from 1 to 100000');
  return n;
}

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const env = validateEnv(process.env);
  const batchSize = batchSizeArg(process.argv.slice(2));
  // Written synchronously: the command ends with process.exit, and its last line is the summary scripts read.
  const logger = createLogger(env.LOG_LEVEL, pino.destination({ dest: 1, sync: true }));
  let embedded: EmbeddedPostgresHandle | undefined;
  let dataSource: DataSource | undefined;
  const stop = new AbortController();
  const onSignal = () => {
    logger.warn('stopping after the current batch; run the command again to finish');
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let url = env.DATABASE_URL;
    if (!url) {
      logger.info({ dataDir: env.DATA_DIR, port: env.EMBEDDED_POSTGRES_PORT }, 'DATABASE_URL is unset: starting embedded PostgreSQL');
      embedded = await startEmbeddedPostgres({
        dataDir: env.DATA_DIR,
        port: env.EMBEDDED_POSTGRES_PORT,
        runtimeDir: env.EMBEDDED_POSTGRES_RUNTIME_DIR,
        logger,
      });
      url = embedded.url;
    }
    dataSource = await new DataSource(dataSourceOptions(url, 2)).initialize();
    await runMigrationsLocked(dataSource);
    const keyring = await LeadsKeyring.load(env);
    logger.info({ encryptionKeyId: keyring.current.id, indexKeyId: keyring.indexKeyId }, 'rotating leads');
    const stats = await rotateLeads(dataSource, keyring, { batchSize, signal: stop.signal, log: logger });
    // The builds' secrets (access tokens, webhook secrets, environment variables) are sealed with the same keys.
    const git = stop.signal.aborted ? undefined : await rotateGitSecrets(dataSource, keyring, logger);
    if (git) logger.info(git, git.remaining === 0 ? 'every build secret is under the current key' : 'some build secrets are not under the current key yet');
    // Form submissions (issue 30) are sealed and indexed like the leads.
    const forms = stop.signal.aborted ? undefined : await rotateSubmissions(dataSource, keyring, logger, stop.signal);
    if (forms) {
      logger.info(
        forms,
        forms.remaining === 0 ? 'every form submission is under the current keys' : 'some form submissions are not under the current keys yet',
      );
    }
    // Outgoing webhooks' signing secrets and logged bodies, TOTP secrets, SSO client secrets: sealed with the same keys.
    let othersRemaining = 0;
    for (const columns of [...WEBHOOK_SEALED_COLUMNS, TOTP_SEALED_COLUMNS, SSO_SEALED_COLUMNS]) {
      if (stop.signal.aborted) {
        othersRemaining++;
        break;
      }
      const other = await resealRows(dataSource, keyringRowCipher(keyring), columns, logger, stop.signal);
      othersRemaining += other.remaining;
      logger.info(other, other.remaining === 0 ? `every ${columns.what} is under the current key` : `some ${columns.what}s are not under the current key yet`);
    }
    // Last: the leads' summary is the line scripts read.
    logger.info(stats, stats.remaining === 0 ? 'every lead is under the current keys' : 'some leads are not under the current keys yet');
    return stats.remaining === 0 && git?.remaining === 0 && forms?.remaining === 0 && othersRemaining === 0 ? 0 : 1;
  } finally {
    await dataSource?.destroy();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error((err as Error).message);
    process.exit(1);
  },
);
