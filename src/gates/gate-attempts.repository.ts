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

  /**
   * Counters whose window has passed (`expire` is in epoch milliseconds). Rows a request
   * holds are skipped (next round): a form post upserts two counters in one statement
   * (the visitor's and its address's), and a purge waiting on one of them while holding
   * the other would deadlock with it; a purge that never waits cannot.
   */
  @GenerateSql({ params: () => [0] })
  async purgeExpired(nowMs: number): Promise<void> {
    await this.dataSource.query('DELETE FROM gate_rate_limits WHERE key IN (SELECT key FROM gate_rate_limits WHERE expire < $1 FOR UPDATE SKIP LOCKED)', [
      nowMs,
    ]);
  }
}
