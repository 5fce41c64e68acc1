import { Module } from '@nestjs/common';

import { LeadsModule } from '../leads/leads.module';
import { MailModule } from '../mail/mail.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { WebhookDeliveriesPurge } from './webhook-deliveries-purge.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Outgoing webhooks per workspace (issue 30, docs/webhooks.md). */
@Module({
  imports: [LeadsModule, MailModule, WorkspacesModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository, WebhookDeliveriesPurge],
})
export class WebhooksModule {}
