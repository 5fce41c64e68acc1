import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';

export interface LogChunkRow {
  id: string;
  text: string;
}

/** Every query on `build_log_chunks`: the lines of running builds. */
@Injectable()
export class BuildLogRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: () => ['bld_none', 'line\n'] })
  async append(buildId: string, text: string): Promise<void> {
    // A build deleted meanwhile (its project went) has no row to append to: nothing to keep.
    await this.dataSource.query('INSERT INTO build_log_chunks (build_id, text) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM builds WHERE id = $1)', [
      buildId,
      text,
    ]);
  }

  /** Chunks after `afterId` ('0': from the start), oldest first. */
  @GenerateSql({ params: () => ['bld_none', '0', 100] })
  chunksAfter(buildId: string, afterId: string, limit: number, manager: EntityManager = this.dataSource.manager): Promise<LogChunkRow[]> {
    return manager.query('SELECT id::text AS id, text FROM build_log_chunks WHERE build_id = $1 AND id > $2 ORDER BY id LIMIT $3', [buildId, afterId, limit]);
  }

  /** The chunks up to `throughId` (those moved to storage); lines appended since stay for the next move. */
  @GenerateSql({ params: () => ['bld_none', '100'] })
  async deleteChunksThrough(buildId: string, throughId: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query('DELETE FROM build_log_chunks WHERE build_id = $1 AND id <= $2', [buildId, throughId]);
  }
}
