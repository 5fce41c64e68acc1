import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Abstract, type INestApplicationContext, Module, type ModuleMetadata, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';

import { AuditModule } from '../../src/audit/audit.module';
import { CommonModule } from '../../src/common/common.module';
import { newId } from '../../src/common/ids';
import { AppConfig } from '../../src/config/app-config';
import { AppConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { EventsModule } from '../../src/events/events.module';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { QuotasModule } from '../../src/quotas/quotas.module';
import type { Principal } from '../../src/shared/principal';
import { StorageModule } from '../../src/storage/storage.module';
import { NO_FREE_QUOTAS } from './app';
import { createTestDatabase } from './database';

export interface MediumContext {
  app: INestApplicationContext;
  config: AppConfig;
  dataSource: DataSource;
  get<T>(type: Type<T> | Abstract<T>): T;
  /** A workspace row of its own (no user: a service is called with a principal, not a session). */
  newWorkspace(plan?: 'free' | 'pro' | 'team'): Promise<{ workspaceId: string }>;
  close(): Promise<void>;
}

/** An API token's principal in `workspaceId`: every scope, optionally bound to one project. */
export function tokenPrincipal(workspaceId: string, projectId?: string): Principal {
  return { kind: 'token', workspaceId, scopes: ['deploy', 'read', 'delete', 'admin'], projectId: projectId ?? null };
}

/**
 * A service on a real PostgreSQL (a database cloned from the migrated template, its own)
 * and real object storage (a temporary directory), built by Nest from the real modules
 * that provide it and what they import: no HTTP server, no guard, no controller in the
 * call. The shape of immich's server/test/medium/specs/services/ (`newMediumService`):
 * the service under test is `sut`, and `ctx` builds the rows a case needs.
 *
 * The infrastructure every feature module expects (config, database, clock and
 * idempotency, metrics, storage, quotas, the event bus) is always there; `imports` names the feature
 * modules. Periodic jobs do not run (SWEEP_INTERVAL_SECONDS=0); tests call them.
 */
@Module({})
class MediumModule {}

export async function newMediumService<T>(
  service: Type<T>,
  options: { imports: NonNullable<ModuleMetadata['imports']>; env?: Record<string, string | undefined> },
): Promise<{ sut: T; ctx: MediumContext }> {
  const db = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'statichost-medium-'));
  let app: INestApplicationContext;
  try {
    const imports = [
      AppConfigModule.forRoot({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        SWEEP_INTERVAL_SECONDS: '0',
        OUTBOX_INTERVAL_SECONDS: '0',
        PLANS_JSON: NO_FREE_QUOTAS,
        ...options.env,
        DATABASE_URL: db.url,
      }),
      DatabaseModule,
      CommonModule,
      MetricsModule,
      StorageModule,
      QuotasModule,
      // Global in the app: deploys, quotas and the other emitters take the event bus (issue 30).
      EventsModule,
      // Global in the app: every service that changes something writes its audit entry (issue 32).
      AuditModule,
      ...options.imports,
    ];
    app = await NestFactory.createApplicationContext({ module: MediumModule, imports }, { logger: false, abortOnError: false });
  } catch (err) {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const testing = app;
  const dataSource = testing.get(DataSource);
  const ctx: MediumContext = {
    app: testing,
    config: testing.get(AppConfig),
    dataSource,
    get: (type) => testing.get(type, { strict: false }),
    async newWorkspace(plan = 'free') {
      const workspaceId = newId('ws');
      await dataSource.query('INSERT INTO workspaces (id, name, plan) VALUES ($1, $2, $3)', [workspaceId, `medium ${workspaceId}`, plan]);
      return { workspaceId };
    },
    async close() {
      await testing.close();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return { sut: testing.get(service, { strict: false }), ctx };
}
