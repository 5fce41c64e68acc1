import { Global, Module } from '@nestjs/common';

import { PlansService } from './plans.service';
import { QuotaRepository } from './quota.repository';
import { QuotaService } from './quota.service';
import { SitePauses } from './site-pauses.service';

/**
 * The plan table and quota checks. Global, because projects, deployments and
 * workspaces consult it and billing builds on them: it depends on nothing but the
 * database, the config and the clock.
 */
@Global()
@Module({
  providers: [PlansService, QuotaService, QuotaRepository, SitePauses],
  exports: [PlansService, QuotaService, SitePauses],
})
export class QuotasModule {}
