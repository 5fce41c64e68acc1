import { Module } from '@nestjs/common';

import { SitesModule } from '../sites/sites.module';
import { InternalGuard } from './internal.guard';
import { TlsAskController } from './tls-ask.controller';
import { TlsAskService } from './tls-ask.service';

/** Endpoints for the infrastructure around the app (the TLS proxy), never for users. */
@Module({
  imports: [SitesModule],
  controllers: [TlsAskController],
  providers: [TlsAskService, InternalGuard],
})
export class InternalModule {}
