import { randomInt } from 'node:crypto';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';

import { AppConfig } from '../../config/app-config';
import { ADVISORY_LOCKS } from '../../database/advisory-locks';
const RECONNECT_MS = 1000;

/**
 * This process's proof of life in PostgreSQL: a session advisory lock
 * (ADVISORY_LOCKS.instanceLeaseClass, id) held on a connection of its own for as long as the
 * process runs. The kernel closes that connection when the process dies, however it
 * dies (SIGKILL, OOM), and PostgreSQL drops the lock with it, so any instance can tell
 * whether the process that claimed an Idempotency-Key is still working on it
 * (IdempotencyRepository.find) instead of waiting out a timeout.
 *
 * `id` is null while the lock is not held (connection down): claims made then fall back
 * to the timeout. A lost connection makes this process look dead while it still works;
 * a retry may then take over one of its keys, which is safe because a transactional
 * handler only commits while its claim is still the key's (IdempotencyService.completeIn).
 */
@Injectable()
export class InstanceLease implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(InstanceLease.name);
  private client?: Client;
  private held: number | null = null;
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(private readonly config: AppConfig) {}

  /** The id whose lock this process holds now, or null. */
  get id(): number | null {
    return this.held;
  }

  async onModuleInit(): Promise<void> {
    await this.acquire();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.held = null;
    await this.client?.end().catch(() => undefined);
  }

  private async acquire(): Promise<void> {
    const client = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'statichost-instance-lease' });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.held = null;
      if (this.closed) return;
      this.logger.warn(`instance lease connection lost${err ? `: ${err.message}` : ''}; reconnecting`);
      this.later();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      // Ids are positive so that they read the same in pg_locks.objid (an unsigned oid).
      for (;;) {
        const id = randomInt(1, 2 ** 31 - 1);
        const [row] = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [ADVISORY_LOCKS.instanceLeaseClass, id])).rows;
        if (row.ok) {
          this.client = client;
          this.held = id;
          break;
        }
      }
    } catch (err) {
      await client.end().catch(() => undefined);
      this.logger.warn(`instance lease not taken: ${(err as Error).message}; Idempotency-Keys claimed meanwhile wait out the timeout`);
      this.later();
      return;
    }
    if (this.closed) await this.onModuleDestroy();
  }

  private later(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.acquire(), RECONNECT_MS);
    this.retry.unref();
  }
}
