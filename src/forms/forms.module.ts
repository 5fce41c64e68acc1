import { Module } from '@nestjs/common';

import { LeadsModule } from '../leads/leads.module';
import { ProjectsModule } from '../projects/projects.module';
import { FormsController } from './forms.controller';
import { FormsRepository } from './forms.repository';
import { FormsService } from './forms.service';

/** Forms on hosted sites (issue 30): reading and curating submissions, sealed with the leads keyring. */
@Module({
  imports: [ProjectsModule, LeadsModule],
  controllers: [FormsController],
  providers: [FormsService, FormsRepository],
  exports: [FormsService],
})
export class FormsModule {}
