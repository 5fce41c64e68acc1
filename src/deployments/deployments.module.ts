import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { BlobsModule } from '../blobs/blobs.module';
import { ProjectsModule } from '../projects/projects.module';
import { DeployService } from './deploy.service';
import { Deployment } from './deployment.entity';
import { DeploymentFile } from './deployment-file.entity';
import { DeploymentsController, LazyDeployController } from './deployments.controller';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentsService } from './deployments.service';
import { TtlSweeper } from './ttl-sweeper.service';

@Module({
  imports: [TypeOrmModule.forFeature([Deployment, DeploymentFile]), ProjectsModule, BlobsModule],
  controllers: [LazyDeployController, DeploymentsController],
  providers: [DeployService, DeploymentsService, DeploymentsRepository, TtlSweeper],
  exports: [DeployService, DeploymentsService, DeploymentsRepository, BlobsModule, TtlSweeper],
})
export class DeploymentsModule {}
