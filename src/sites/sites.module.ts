import { Module } from '@nestjs/common';

import { AnalyticsModule } from '../analytics/analytics.module';
import { DeploymentsModule } from '../deployments/deployments.module';
import { GatesModule } from '../gates/gates.module';
import { ProjectsModule } from '../projects/projects.module';
import { FileSender } from './file-sender.service';
import { SiteCache } from './site-cache.service';
import { SiteRouter } from './site-router.service';

@Module({
  imports: [DeploymentsModule, ProjectsModule, AnalyticsModule, GatesModule],
  providers: [SiteCache, FileSender, SiteRouter],
  exports: [SiteCache, SiteRouter, GatesModule],
})
export class SitesModule {}
