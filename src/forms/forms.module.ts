import { Module } from '@nestjs/common';

import { AnalyticsModule } from '../analytics/analytics.module';
import { LeadsModule } from '../leads/leads.module';
import { ProjectsModule } from '../projects/projects.module';
import { FormIntakeRepository } from './form-intake.repository';
import { FormIntake } from './form-intake.service';
import { FormRegistrar } from './form-registrar.service';
import { FormsController } from './forms.controller';
import { FormsRepository } from './forms.repository';
import { FormsService } from './forms.service';

/**
 * Forms on hosted sites (issue 30): registering what deployments declare, visitors'
 * submissions (the site router hands them over), and reading and curating them, all
 * sealed with the leads keyring.
 */
@Module({
  // EventBus comes from the global EventsModule.
  imports: [ProjectsModule, LeadsModule, AnalyticsModule],
  controllers: [FormsController],
  providers: [FormIntakeRepository, FormIntake, FormRegistrar, FormsService, FormsRepository],
  exports: [FormIntake, FormsService],
})
export class FormsModule {}
