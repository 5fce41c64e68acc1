import { Module } from '@nestjs/common';

import { ProjectsModule } from '../projects/projects.module';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsService } from './analytics.service';
import { AnalyticsRecorder } from './analytics-recorder.service';
import { AnalyticsRetention } from './analytics-retention.service';

/** Site analytics: counting in the site router (AnalyticsRecorder), retention, and the API. */
@Module({
  imports: [ProjectsModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsRecorder, AnalyticsRetention, AnalyticsService, AnalyticsRepository],
  exports: [AnalyticsRecorder, AnalyticsRetention],
})
export class AnalyticsModule {}
