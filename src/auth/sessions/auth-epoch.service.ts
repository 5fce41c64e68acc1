import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';

import { FreshRead } from '../../common/fresh-read';
import { AppConfig } from '../../config/app-config';
import { AuthEpochRepository } from './auth-epoch.repository';

const RECONNECT_MS = 1000;

/**
 * The auth epoch (migration AuthEpoch): a counter that every revocation, session end and
 * membership change bumps in its own transaction, by trigger. Credentials are cached per
 * epoch (CredentialCache); each request asks `fresh()` for the epoch as of after it
 * arrived, so a change committed before the request was sent, on any instance, always
 * shows as a new epoch and the cache is not used. This does not depend on when a
 * NOTIFY would be delivered: it is one tiny read, shared by every request waiting at
 * that moment (FreshRead), on a connection of its own so it never queues behind the
 * pool's work.
 */
@Injectable()
export class AuthEpoch implements OnModuleDestroy {
  private readonly logger = new Logger(AuthEpoch.name);
  private client?: Client;
  private connecting?: Promise<Client>;
  private retryAfter = 0;
  private closed = false;
  private readonly reads = new FreshRead(() => this.read());

  constructor(
    private readonly rows: AuthEpochRepository,
    private readonly config: AppConfig,
  ) {}

  /** The epoch, read by a query sent after this call. */
  fresh(): Promise<string> {
    return this.reads.get();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async read(): Promise<string> {
    // Without its own connection (not up yet, or lost) it reads through the pool: slower, as correct.
    const client = await this.connection().catch(() => undefined);
    return this.rows.read(client);
  }

  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed || Date.now() < this.retryAfter) return Promise.reject(new Error('auth epoch connection unavailable'));
    return (this.connecting ??= this.connect().finally(() => (this.connecting = undefined)));
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'statichost-auth-epoch' });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      if (!this.closed) this.logger.warn(`auth epoch connection lost${err ? `: ${err.message}` : ''}; reading through the pool until it is back`);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
    } catch (err) {
      this.retryAfter = Date.now() + RECONNECT_MS;
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('closed');
    }
    this.client = client;
    return client;
  }
}
