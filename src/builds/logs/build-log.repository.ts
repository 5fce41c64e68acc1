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
    // ORDER BY the table's column, not the bare name: a bare `id` means the output column,
    // the text, whose order puts '10' before '9'. Then the last row was not the newest chunk,
    // so a move deleted only part of what it stored and the next move stored the rest again
    // (a line twice, the "known race"), and followers got lines out of order and twice.
    return manager.query('SELECT c.id::text AS id, c.text FROM build_log_chunks c WHERE c.build_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3', [
      buildId,
      afterId,
      limit,
    ]);
  }

  /** The chunks up to `throughId` (those moved to storage); lines appended since stay for the next move. */
  @GenerateSql({ params: () => ['bld_none', '100'] })
  async deleteChunksThrough(buildId: string, throughId: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query('DELETE FROM build_log_chunks WHERE build_id = $1 AND id <= $2', [buildId, throughId]);
  }
}
