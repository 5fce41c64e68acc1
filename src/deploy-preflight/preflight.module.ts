import { Module } from '@nestjs/common';

import { DeploymentsModule } from '../deployments/deployments.module';
import { ProjectsModule } from '../projects/projects.module';
import { DeployPreflightController } from './preflight.controller';
import { DeployPreflightService } from './preflight.service';

/** POST /v1/deployments/preflight: a deploy's checks before any upload. */
@Module({
  imports: [DeploymentsModule, ProjectsModule],
  controllers: [DeployPreflightController],
  providers: [DeployPreflightService],
})
export class DeployPreflightModule {}
