import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppConfig } from '../config/app-config';
import { DeferredWork } from './deferred-work';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { IdempotencyService } from './idempotency/idempotency.service';
import { IdempotencyKey } from './idempotency/idempotency-key.entity';
import { IdempotencyPurge } from './idempotency/idempotency-purge.service';
import { InstanceLease } from './idempotency/instance-lease.service';
import { configurePasswordHashCost, DEFAULT_PASSWORD_HASH_COST, passwordHashing } from './password-hash';
import { Clock, SystemClock } from './time';

/** Cross-cutting providers every module may inject. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [
    { provide: Clock, useClass: SystemClock },
    DeferredWork,
    IdempotencyService,
    IdempotencyRepository,
    IdempotencyInterceptor,
    InstanceLease,
    IdempotencyPurge,
  ],
  exports: [Clock, DeferredWork, IdempotencyService, IdempotencyInterceptor],
})
export class CommonModule {
  constructor(config: AppConfig) {
    // One limiter per process, as the threadpool it protects is.
    passwordHashing.configure(config.PASSWORD_HASH_CONCURRENCY, config.PASSWORD_HASH_QUEUE);
    configurePasswordHashCost(config.PASSWORD_HASH_COST);
    if (config.PASSWORD_HASH_COST < DEFAULT_PASSWORD_HASH_COST) {
      new Logger('PasswordHashing').warn(
        `PASSWORD_HASH_COST=${config.PASSWORD_HASH_COST} (below ${DEFAULT_PASSWORD_HASH_COST}) makes new password hashes cheap to guess from a stolen database: meant for test suites only`,
      );
    }
  }
}
