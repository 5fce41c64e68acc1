import { Injectable, OnApplicationBootstrap } from '@nestjs/common';

import { PeriodicJob } from '../common/periodic-job';
import { removeStaleFiles } from '../common/stale-files';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { LocalStorageDriver } from './local-storage.driver';
import { StorageProvider } from './storage.provider';
import { uploadSpoolDir } from './upload-spool';

/**
 * Removes what crashed writes leave in this instance's DATA_DIR: temp objects of the
 * local driver (`objects/.tmp`) and upload spools (`uploads/`), once not written for
 * STALE_TEMP_FILE_SECONDS. Runs at start and every SWEEP_INTERVAL_SECONDS. No lock:
 * instances sharing DATA_DIR may both sweep; only stale files go, never a live write.
 */
@Injectable()
export class TempFileSweeper extends PeriodicJob<number> implements OnApplicationBootstrap {
  constructor(
    private readonly storage: StorageProvider,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(TempFileSweeper.name, config.SWEEP_INTERVAL_SECONDS);
  }

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    // Not awaited: a large heap of leftovers must not delay start-up.
    this.trigger().catch((err) => this.logger.error(`start-up sweep failed: ${(err as Error).message}`, (err as Error).stack));
  }

  /** One sweep now; the number of files removed. */
  async runOnce(): Promise<number> {
    return (await this.trigger()) ?? 0;
  }

  protected async work(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.STALE_TEMP_FILE_SECONDS * 1000);
    const dirs = [uploadSpoolDir(this.config.DATA_DIR)];
    if (this.storage instanceof LocalStorageDriver) dirs.push(this.storage.tempDir);
    let removed = 0;
    for (const dir of dirs) removed += await removeStaleFiles(dir, cutoff);
    if (removed > 0) this.logger.log(`removed ${removed} stale temp file(s) left by interrupted writes`);
    return removed;
  }
}
