import { Injectable } from '@nestjs/common';
import type { Client } from 'pg';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';

const READ = 'SELECT "epoch" FROM "auth_epoch"';

/** The auth epoch's one query (migration AuthEpoch; bumped by triggers, never by the app). */
@Injectable()
export class AuthEpochRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** On `client` (AuthEpoch's own connection) when given, else through the pool. */
  @GenerateSql({ params: () => [] })
  async read(client?: Client): Promise<string> {
    const rows: { epoch: string }[] = client ? (await client.query<{ epoch: string }>(READ)).rows : await this.dataSource.query(READ);
    return rows[0].epoch;
  }
}
