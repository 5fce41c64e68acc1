import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppConfig } from '../config/app-config';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { IdempotencyService } from './idempotency/idempotency.service';
import { IdempotencyKey } from './idempotency/idempotency-key.entity';
import { IdempotencyPurge } from './idempotency/idempotency-purge.service';
import { InstanceLease } from './idempotency/instance-lease.service';
import { passwordHashing } from './password-hash';
import { Clock, SystemClock } from './time';

/** Cross-cutting providers every module may inject. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [{ provide: Clock, useClass: SystemClock }, IdempotencyService, IdempotencyRepository, IdempotencyInterceptor, InstanceLease, IdempotencyPurge],
  exports: [Clock, IdempotencyService, IdempotencyInterceptor],
})
export class CommonModule {
  constructor(config: AppConfig) {
    // One limiter per process, as the threadpool it protects is.
    passwordHashing.configure(config.PASSWORD_HASH_CONCURRENCY, config.PASSWORD_HASH_QUEUE);
  }
}
