import { Module } from '@nestjs/common';

import { SiteWebhookRepository } from './site-webhook.repository';
import { SiteWebhookService } from './site-webhook.service';

@Module({ providers: [SiteWebhookService, SiteWebhookRepository] })
export class SiteWebhookModule {}
