import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

/**
 * The gates' shared attempt counters (`gate_rate_limits`). rate-limiter-flexible
 * reads and writes them itself (GateAccess.limiter); this is what it never does.
 */
@Injectable()
export class GateAttemptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Counters whose window has passed (`expire` is in epoch milliseconds). */
  @GenerateSql({ params: () => [0] })
  async purgeExpired(nowMs: number): Promise<void> {
    await this.dataSource.query('DELETE FROM gate_rate_limits WHERE expire < $1', [nowMs]);
  }
}
