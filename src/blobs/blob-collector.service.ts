import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, MAINTENANCE_QUEUE, PeriodicJob } from '../common/periodic-job';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { BlobStore } from './blob-store.service';

export interface CollectReport extends JobReport {
  objectsDeleted: number;
}

/**
 * Every SWEEP_INTERVAL_SECONDS (0 disables it; tests call runOnce): deletes the
 * objects nothing has referenced for BLOB_GC_GRACE_SECONDS (BlobStore.collectGarbage).
 * Collection is safe beside deploys and beside another collector, but one instance at
 * a time (advisory lock) keeps several from walking the same candidates.
 */
@Injectable()
export class BlobCollector extends PeriodicJob<CollectReport> {
  constructor(
    dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly config: AppConfig,
  ) {
    super(BlobCollector.name, config.SWEEP_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.blobCollection }, MAINTENANCE_QUEUE);
  }

  /** One round; `ran` is false when another instance holds the lock. */
  async runOnce(): Promise<CollectReport> {
    return (await this.trigger()) ?? { ran: false, objectsDeleted: 0 };
  }

  protected async work(): Promise<CollectReport> {
    const objectsDeleted = await this.blobs.collectGarbage(this.config.BLOB_GC_GRACE_SECONDS * 1000);
    return { ran: true, objectsDeleted };
  }
}
