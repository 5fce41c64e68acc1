import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { runMigrationsLocked } from './migrator';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set (main.ts starts the embedded server first)');
        return dataSourceOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
      },
      // Migrations finish before any other module starts using the database.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        await runMigrationsLocked(dataSource);
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
