import { Module } from '@nestjs/common';

import { AnalyticsModule } from '../analytics/analytics.module';
import { DeploymentsModule } from '../deployments/deployments.module';
import { FormsModule } from '../forms/forms.module';
import { PreviewsModule } from '../previews/previews.module';
import { ProjectsModule } from '../projects/projects.module';
import { FileSender } from './file-sender.service';
import { GeoIp } from './geoip/geoip.service';
import { SiteProxy } from './proxy/site-proxy.service';
import { SiteCache } from './site-cache.service';
import { SiteRouter } from './site-router.service';
import { SiteWarmStart } from './warm-start/site-warm-start.service';
import { WarmListRepository } from './warm-start/warm-list.repository';

@Module({
  // Gates (the router's gate answers) come from the global GatesModule.forRoot (AppModule).
  imports: [DeploymentsModule, ProjectsModule, PreviewsModule, AnalyticsModule, FormsModule],
  providers: [SiteCache, FileSender, SiteProxy, GeoIp, SiteRouter, WarmListRepository, SiteWarmStart],
  exports: [SiteCache, SiteRouter],
})
export class SitesModule {}
