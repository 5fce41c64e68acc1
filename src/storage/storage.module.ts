import { Global, Module } from '@nestjs/common';
import { join, resolve } from 'node:path';
import { AppConfig } from '../config/app-config';
import { LocalStorageDriver } from './local-storage.driver';
import { StorageProvider } from './storage.provider';

export function createStorageProvider(config: AppConfig): StorageProvider {
  switch (config.STORAGE_DRIVER) {
    case 'local':
      return new LocalStorageDriver(resolve(join(config.DATA_DIR, 'objects')));
    case 's3':
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      throw new Error('STORAGE_DRIVER=s3 is not available yet');
  }
}

@Global()
@Module({
  providers: [{ provide: StorageProvider, inject: [AppConfig], useFactory: createStorageProvider }],
  exports: [StorageProvider],
})
export class StorageModule {}
