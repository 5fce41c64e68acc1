import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { VISITOR_RECORDER } from '../gates/visitor-recorder';
import { ProjectsModule } from '../projects/projects.module';
import { LeadsKeyring } from './keyring';
import { LeadRecorder } from './lead-recorder';
import { LeadsController } from './leads.controller';
import { LeadsRepository } from './leads.repository';
import { LeadsService } from './leads.service';

/**
 * Leads: the email gate's visitors (stored through VISITOR_RECORDER, the gates' port),
 * sealed storage, listing, search, export, erasure.
 */
@Module({
  imports: [ProjectsModule],
  controllers: [LeadsController],
  providers: [
    { provide: LeadsKeyring, inject: [AppConfig], useFactory: (config: AppConfig) => LeadsKeyring.load(config) },
    LeadsService,
    LeadsRepository,
    LeadRecorder,
    { provide: VISITOR_RECORDER, useExisting: LeadRecorder },
  ],
  exports: [LeadsService, LeadsKeyring, VISITOR_RECORDER],
})
export class LeadsModule {}
