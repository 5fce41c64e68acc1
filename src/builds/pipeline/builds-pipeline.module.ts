import { Module } from '@nestjs/common';

import { DeploymentsModule } from '../../deployments/deployments.module';
import { BuildPipeline } from './build-pipeline';

/** The pipeline a builder runs per build; the builds module imports this and calls BuildPipeline.run. */
@Module({
  imports: [DeploymentsModule],
  providers: [BuildPipeline],
  exports: [BuildPipeline],
})
export class BuildsPipelineModule {}
