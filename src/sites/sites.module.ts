import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/analytics.module';
import { DeploymentsModule } from '../deployments/deployments.module';
import { ProjectsModule } from '../projects/projects.module';
import { GateAttemptsRepository } from './gate-attempts.repository';
import { GateService } from './gate.service';
import { SiteCache } from './site-cache.service';
import { SiteRouter } from './site-router.service';

@Module({
  imports: [DeploymentsModule, ProjectsModule, AnalyticsModule],
  providers: [SiteCache, GateService, SiteRouter, GateAttemptsRepository],
  exports: [SiteCache, GateService, SiteRouter],
})
export class SitesModule {}
