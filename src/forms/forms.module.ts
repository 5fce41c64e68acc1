import { Module } from '@nestjs/common';

import { AnalyticsModule } from '../analytics/analytics.module';
import { LeadsModule } from '../leads/leads.module';
import { FormIntakeRepository } from './form-intake.repository';
import { FormIntake } from './form-intake.service';
import { FormRegistrar } from './form-registrar.service';

/** Forms on hosted sites (issue 30): registering what deployments declare, and visitors' submissions. */
@Module({
  // EventBus comes from the global EventsModule.
  imports: [LeadsModule, AnalyticsModule],
  providers: [FormIntakeRepository, FormIntake, FormRegistrar],
  exports: [FormIntake],
})
export class FormsModule {}
