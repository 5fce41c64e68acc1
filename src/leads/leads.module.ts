import { Module } from '@nestjs/common';

import { SECRET_SEALER } from '../auth/two-factor/secret-sealer';
import { AppConfig } from '../config/app-config';
import { VISITOR_RECORDER } from '../gates/visitor-recorder';
import { ProjectsModule } from '../projects/projects.module';
import { LeadsKeyring } from './keyring';
import { LeadRecorder } from './lead-recorder';
import { LeadsController } from './leads.controller';
import { LeadsRepository } from './leads.repository';
import { LeadsService } from './leads.service';
import { keyringSealer } from './secret-sealer';

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
    // TOTP secrets (src/auth/two-factor), sealed under the same keyring.
    { provide: SECRET_SEALER, inject: [LeadsKeyring], useFactory: keyringSealer },
  ],
  exports: [LeadsService, LeadsKeyring, VISITOR_RECORDER, SECRET_SEALER],
})
export class LeadsModule {}
