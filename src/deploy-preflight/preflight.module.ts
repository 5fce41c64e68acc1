import { Module } from '@nestjs/common';
import { DeploymentsModule } from '../deployments/deployments.module';
import { DeployPreflightController } from './preflight.controller';
import { DeployPreflightService } from './preflight.service';

/** POST /v1/deployments/preflight: a deploy's checks before any upload. */
@Module({
  imports: [DeploymentsModule],
  controllers: [DeployPreflightController],
  providers: [DeployPreflightService],
})
export class DeployPreflightModule {}
