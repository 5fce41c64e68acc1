import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { AppConfig } from '../../src/config/app-config';
import { createTestDatabase } from './database';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  server: Server;
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  port: number;
  dataSource: DataSource;
  databaseUrl: string;
  /** Every log line the app wrote, as raw JSON text. */
  logs: string[];
  http(): ReturnType<typeof request>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  /** Reuse another app's database (two instances on one database). */
  databaseUrl?: string;
}

/** The real app on a real port, with its own database and data directory. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? db!.url;
  const dataDir = await mkdtemp(join(tmpdir(), 'statichost-test-data-'));
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const { app, config } = await createApp({
    env: { NODE_ENV: 'test', LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: '0', ...options.env, DATABASE_URL: databaseUrl },
    logDestination,
  });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  const port = (server.address() as { port: number }).port;
  return {
    app,
    config,
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataSource: app.get(DataSource),
    databaseUrl,
    logs,
    http: () => request(server),
    async close() {
      await app.close();
      await db?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
