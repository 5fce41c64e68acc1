import { Global, Module } from '@nestjs/common';
import { OutboxService } from './outbox.service';

/** The transactional outbox every module that sends something outside uses. */
@Global()
@Module({
  providers: [OutboxService],
  exports: [OutboxService],
})
export class OutboxModule {}
