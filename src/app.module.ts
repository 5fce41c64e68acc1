import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth/auth.guard';
import { AppConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { StorageModule } from './storage/storage.module';

@Module({})
export class AppModule {
  static forRoot(env: Record<string, string | undefined> = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [AppConfigModule.forRoot(env), DatabaseModule, StorageModule, HealthModule],
      providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
