import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';

import { AppConfig } from './app-config';
import { validateEnv } from './env.schema';

@Global()
@Module({})
export class AppConfigModule {
  /**
   * Validates `process.env` merged with `overrides` once, at start-up: a bad value
   * stops the app with a message naming the variable.
   */
  static forRoot(overrides: Record<string, string | undefined> = {}): DynamicModule {
    const config = AppConfig.from(validateEnv({ ...process.env, ...overrides }));
    return {
      module: AppConfigModule,
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, ignoreEnvVars: true, load: [() => ({ ...config })] })],
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig, ConfigModule],
    };
  }
}
