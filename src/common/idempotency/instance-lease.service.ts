import { randomInt } from 'node:crypto';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';

import { AppConfig } from '../../config/app-config';
import { ADVISORY_LOCKS } from '../../database/advisory-locks';

const RECONNECT_MS = 1000;
/** Bounds a connect to a server that accepts TCP but never answers (as the data source's own pool does). */
const CONNECT_TIMEOUT_MS = 5000;
/**
 * TCP keepalive on the lease's idle connection: a connection dropped silently (a NAT or
 * balancer forgetting it) is noticed in seconds, not after the kernel's default two hours,
 * during which the server may already have ended the backend and freed the lock while
 * this process went on claiming keys under it.
 */
const KEEPALIVE_DELAY_MS = 10_000;

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
  /** The id held last: taken again first after a reconnect, so claims made under it stay alive. */
  private last: number | null = null;
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
    const client = new Client({
      connectionString: this.config.DATABASE_URL,
      application_name: 'statichost-instance-lease',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
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
      for (let tries = 0; ; tries++) {
        const id = tries === 0 && this.last !== null ? this.last : randomInt(1, 2 ** 31 - 1);
        const [row] = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [ADVISORY_LOCKS.instanceLeaseClass, id])).rows;
        if (row.ok) {
          this.client = client;
          this.held = id;
          this.last = id;
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
