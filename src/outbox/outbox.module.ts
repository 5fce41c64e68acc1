import { Global, Module } from '@nestjs/common';

import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';

/** The transactional outbox every module that sends something outside uses. */
@Global()
@Module({
  providers: [OutboxService, OutboxRepository],
  exports: [OutboxService],
})
export class OutboxModule {}
