import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { StorageProvider } from '../storage/storage.provider';

type CheckState = 'up' | 'down';
export interface HealthReport {
  status: 'ok' | 'error';
  checks: { database: CheckState; storage: CheckState };
}

const TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('health check timed out')), TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

@Injectable()
export class HealthService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly storage: StorageProvider,
  ) {}

  async check(): Promise<HealthReport> {
    const [database, storage] = await Promise.all([
      withTimeout(this.dataSource.query('SELECT 1')).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      withTimeout(this.storage.check()).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
    ]);
    return { status: database === 'up' && storage === 'up' ? 'ok' : 'error', checks: { database, storage } };
  }
}
