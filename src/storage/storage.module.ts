import { join, resolve } from 'node:path';

import { Global, Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { LocalStorageDriver } from './local-storage.driver';
import type * as S3Driver from './s3-storage.driver';
import { StorageProvider } from './storage.provider';
import { TempFileSweeper } from './temp-file-sweeper.service';

export function createStorageProvider(config: AppConfig): StorageProvider {
  switch (config.STORAGE_DRIVER) {
    case 'local':
      return new LocalStorageDriver(resolve(join(config.DATA_DIR, 'objects')));
    case 's3': {
      // Required here, not imported at the top: the AWS SDK is a few hundred modules that
      // every start on local storage (and every e2e test file's) would load for nothing.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { S3StorageDriver } = require('./s3-storage.driver') as typeof S3Driver;
      return new S3StorageDriver({
        endpoint: config.S3_ENDPOINT,
        bucket: config.S3_BUCKET!, // required by validateEnv when STORAGE_DRIVER=s3
        region: config.S3_REGION,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        keyPrefix: config.S3_KEY_PREFIX,
      });
    }
  }
}

@Global()
@Module({
  providers: [{ provide: StorageProvider, inject: [AppConfig], useFactory: createStorageProvider }, TempFileSweeper],
  exports: [StorageProvider, TempFileSweeper],
})
export class StorageModule {}
