import { Module } from '@nestjs/common';

import { LeadsModule } from '../leads/leads.module';
import { NotificationDigestJob } from './notification-digest.job';
import { NotificationSettingsController, UnsubscribeController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

/** Mail notifications per person and workspace (issue 30, docs/notifications.md). */
@Module({
  imports: [LeadsModule],
  controllers: [NotificationSettingsController, UnsubscribeController],
  providers: [NotificationsService, NotificationsRepository, NotificationDigestJob],
  exports: [NotificationsService],
})
export class NotificationsModule {}
