import { Module } from '@nestjs/common';
import { GateService } from './gate.service';
import { SiteCache } from './site-cache.service';
import { SiteRouter } from './site-router.service';

@Module({
  providers: [SiteCache, GateService, SiteRouter],
  exports: [SiteCache, GateService, SiteRouter],
})
export class SitesModule {}
