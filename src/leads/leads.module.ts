import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { EmailGate } from '../gates/email-gate.service';
import { ProjectsModule } from '../projects/projects.module';
import { SitesModule } from '../sites/sites.module';
import { LeadsKeyring } from './keyring';
import { LeadsController } from './leads.controller';
import { LeadsRepository } from './leads.repository';
import { LeadsService } from './leads.service';

/** Leads: the email gate's submit handler, sealed storage, listing, search, export, erasure. */
@Module({
  imports: [ProjectsModule, SitesModule],
  controllers: [LeadsController],
  providers: [
    { provide: LeadsKeyring, inject: [AppConfig], useFactory: (config: AppConfig) => LeadsKeyring.load(config) },
    LeadsService,
    LeadsRepository,
    EmailGate,
  ],
  exports: [LeadsService, LeadsKeyring],
})
export class LeadsModule {}
