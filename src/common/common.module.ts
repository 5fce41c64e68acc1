import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyKey } from './idempotency/idempotency-key.entity';
import { IdempotencyService } from './idempotency/idempotency.service';
import { Clock, SystemClock } from './time';

/** Cross-cutting providers every module may inject. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [{ provide: Clock, useClass: SystemClock }, IdempotencyService, IdempotencyInterceptor],
  exports: [Clock, IdempotencyService, IdempotencyInterceptor],
})
export class CommonModule {}
