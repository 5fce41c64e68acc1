import { Module } from '@nestjs/common';

import { LeadsModule } from '../leads/leads.module';
import { ProjectsModule } from '../projects/projects.module';
import { GitController } from './git.controller';
import { GitRepository } from './git.repository';
import { GitSettingsService } from './git-settings.service';

/**
 * A project's Git settings and build environment variables (docs/builds.md). The
 * builds module reads them through GitSettingsService.buildInputs; secrets are sealed
 * with the leads keyring.
 */
@Module({
  imports: [ProjectsModule, LeadsModule],
  controllers: [GitController],
  providers: [GitSettingsService, GitRepository],
  exports: [GitSettingsService],
})
export class GitModule {}
