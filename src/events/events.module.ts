import { Global, Module } from '@nestjs/common';

import { EventBus } from './event-bus';

/** The event bus every module that emits or acts on events uses. */
@Global()
@Module({
  providers: [EventBus],
  exports: [EventBus],
})
export class EventsModule {}
