import { setTimeout as sleep } from 'node:timers/promises';

import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { StorageProvider } from '../../storage/storage.provider';
import { type Build, isFinished } from '../build.entity';
import { BuildsRepository } from '../builds.repository';
import { BuildLogRepository } from './build-log.repository';
import { BuildLogWriter } from './build-log-writer';

/** How often a follower looks for new lines (and for the build's end). */
const FOLLOW_POLL_MS = 250;
const CHUNK_PAGE = 500;

/** Where a finished build's whole log is kept in the storage provider. */
export function buildLogKey(buildId: string): string {
  return `build-logs/${buildId}.log`;
}

/** Where `follow` sends the log: false from `write` when the client has gone. */
export interface LogOutput {
  write(text: string | Buffer): boolean | void;
  readonly closed: boolean;
}

/**
 * A build's log: lines in PostgreSQL while it runs (any instance can serve and follow
 * them), one object in the storage provider once it ended.
 */
@Injectable()
export class BuildLogsService {
  private readonly logger = new Logger('BuildLogs');

  constructor(
    private readonly chunks: BuildLogRepository,
    private readonly builds: BuildsRepository,
    private readonly storage: StorageProvider,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
  ) {}

  writer(buildId: string): BuildLogWriter {
    return new BuildLogWriter(buildId, this.chunks, this.config.BUILD_LOG_MAX_BYTES, () => this.clock.now(), this.logger);
  }

  /**
   * Moves an ended build's lines into one object of the storage provider. The builder and
   * the sweeper may both do it, and a canceled build's builder may still write lines after
   * the sweeper moved the first ones: under the build row's lock, lines are appended to the
   * object already stored (never replace it), and only the lines moved are deleted. Order
   * matters to followers: the object is written and the row marked before the lines go.
   */
  async archive(buildId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const state = await this.builds.lockLogState(buildId, manager);
      if (!state) return;
      const { text, lastId } = await this.chunkText(buildId, manager);
      if (state.logStored && !text) return;
      const before = state.logStored ? await this.stored(buildId) : Buffer.alloc(0);
      await this.storage.put(buildLogKey(buildId), Buffer.concat([before, Buffer.from(text)]));
      if (!state.logStored) await this.builds.markLogStored([buildId], manager);
      if (lastId !== '0') await this.chunks.deleteChunksThrough(buildId, lastId, manager);
    });
  }

  async deleteStored(buildId: string): Promise<void> {
    await this.storage.delete(buildLogKey(buildId));
  }

  /** The log so far. */
  async read(build: Build): Promise<Buffer> {
    if (!build.logStored) {
      const { text } = await this.chunkText(build.id);
      const now = await this.builds.findById(build.id);
      // Archived while the lines were read: some may be gone from the table, all are in the object.
      if (!now?.logStored) return Buffer.from(text);
    }
    return this.stored(build.id);
  }

  /** Sends the log, then its new lines as they come, until the build has ended and all of it is sent, or the client goes. */
  async follow(buildId: string, out: LogOutput): Promise<void> {
    let lastId = '0';
    let sent = 0;
    const sendRest = async () => {
      const whole = await this.stored(buildId);
      if (whole.length > sent) out.write(whole.subarray(sent));
    };
    while (!out.closed) {
      const build = await this.builds.findById(buildId);
      if (!build) return;
      if (build.logStored) return sendRest();
      for (;;) {
        const rows = await this.chunks.chunksAfter(buildId, lastId, CHUNK_PAGE);
        for (const row of rows) {
          out.write(row.text);
          sent += Buffer.byteLength(row.text);
          lastId = row.id;
        }
        if (rows.length < CHUNK_PAGE) break;
      }
      if (isFinished(build.status)) {
        // Its builder appends every line before it ends the build; the lines may have moved to storage since.
        if ((await this.builds.findById(buildId))?.logStored) await sendRest();
        return;
      }
      await sleep(FOLLOW_POLL_MS);
    }
  }

  private async stored(buildId: string): Promise<Buffer> {
    const object = await this.storage.get(buildLogKey(buildId));
    if (!object) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    for await (const part of object.stream) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  private async chunkText(buildId: string, manager?: EntityManager): Promise<{ text: string; lastId: string }> {
    let text = '';
    let lastId = '0';
    for (;;) {
      const rows = await this.chunks.chunksAfter(buildId, lastId, CHUNK_PAGE, manager);
      for (const row of rows) text += row.text;
      // The newest chunk read (rows come oldest first): `archive` deletes through it, and a chunk not read must stay.
      if (rows.length) lastId = rows[rows.length - 1].id;
      if (rows.length < CHUNK_PAGE) return { text, lastId };
    }
  }
}
