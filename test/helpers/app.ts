import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApp } from '../../src/app.factory';
import { type AppConfig } from '../../src/config/app-config';
import { createTestDatabase } from './database';
import { freePort } from './ports';
import { recordResponses } from './response-recorder';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  server: Server;
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  port: number;
  dataSource: DataSource;
  databaseUrl: string;
  dataDir: string;
  /** Every log line the app wrote, as raw JSON text. */
  logs: string[];
  http(): ReturnType<typeof request>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  /** Reuse another app's database only (its own data directory). */
  databaseUrl?: string;
  /** A second instance of `sibling`: the same database and data directory (objects, secrets). */
  sibling?: TestApp;
}

/**
 * The free plan without limits, so suites about other things are not cut short by
 * quotas. Billing's suites pass their own PLANS_JSON, or `PLANS_JSON: undefined`
 * for the built-in table or a PLANS_FILE.
 */
export const NO_FREE_QUOTAS = JSON.stringify({
  free: {
    projects: null,
    deploymentsPerMonth: null,
    storageBytes: null,
    maxFileBytes: null,
    maxTtl: null,
    concurrentBuilds: null,
    buildMinutesPerMonth: null,
    bandwidthBytesPerMonth: null,
  },
});

/**
 * Every test request comes from 127.0.0.1, so the per-address limits across accounts
 * (registrations, failed logins) would otherwise cut suites about other things short.
 * Suites about those limits pass their own values, or `undefined` for the defaults.
 */
export const ADDRESS_LIMITS_OFF = { ACCOUNT_MAIL_MAX_PER_ADDRESS: '1000000', LOGIN_MAX_FAILURES_ACROSS_ACCOUNTS: '1000000' };

/** The real app on a real port, with its own database and data directory. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const shared = options.sibling?.databaseUrl ?? options.databaseUrl;
  const db = shared ? undefined : await createTestDatabase();
  const databaseUrl = shared ?? db!.url;
  const dataDir = options.sibling?.dataDir ?? (await mkdtemp(join(tmpdir(), 'statichost-test-data-')));
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  // The port is chosen first so the app's public site URLs carry it, as in production.
  const port = await freePort();
  const { app, config } = await createApp({
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      SWEEP_INTERVAL_SECONDS: '0',
      OUTBOX_INTERVAL_SECONDS: '0',
      // Off unless a suite turns it on (test/sites/warm-start): an instance started beside
      // another would otherwise load, in the background, the sites the last one served,
      // and a suite about cold loads would count those loads as its own.
      SITE_WARM_START_HOSTS: '0',
      PLANS_JSON: NO_FREE_QUOTAS,
      // scrypt at N=2^10, 4 ms a hash instead of 0.12 s: the suites hash about ten passwords each
      // (up to fifty), 15-18 % of their CPU at the default. Suites about hashing's cost pass `undefined`.
      PASSWORD_HASH_COST: '10',
      ...ADDRESS_LIMITS_OFF,
      ...options.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
    },
    logDestination,
  });
  const server = app.getHttpServer() as Server;
  // Every JSON answer of a route is checked against the OpenAPI document after the run (test/global-teardown.ts).
  const recorder = recordResponses(server);
  await app.listen(port, '127.0.0.1');
  return {
    app,
    config,
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataSource: app.get(DataSource),
    databaseUrl,
    dataDir,
    logs,
    http: () => request(server),
    async close() {
      recorder.flush();
      await app.close();
      await db?.drop();
      if (!options.sibling) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
