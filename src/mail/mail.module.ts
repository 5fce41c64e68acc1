import { Global, Module } from '@nestjs/common';

import { MailService } from './mail.service';

/** Mail through the outbox, for every module that tells a person something. */
@Global()
@Module({
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
