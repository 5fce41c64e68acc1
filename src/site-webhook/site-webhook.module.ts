import { Module } from '@nestjs/common';
import { SiteWebhookService } from './site-webhook.service';

@Module({ providers: [SiteWebhookService] })
export class SiteWebhookModule {}
