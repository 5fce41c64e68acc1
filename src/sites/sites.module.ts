import { Module } from '@nestjs/common';
import { DeploymentsModule } from '../deployments/deployments.module';
import { GateService } from './gate.service';
import { SiteCache } from './site-cache.service';
import { SiteRouter } from './site-router.service';

@Module({
  imports: [DeploymentsModule],
  providers: [SiteCache, GateService, SiteRouter],
  exports: [SiteCache, GateService, SiteRouter],
})
export class SitesModule {}
