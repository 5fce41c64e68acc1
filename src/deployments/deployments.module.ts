import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProjectsModule } from '../projects/projects.module';
import { Blob } from './blob.entity';
import { BlobStore } from './blob-store.service';
import { BlobVariants } from './blob-variants.service';
import { BlobsRepository } from './blobs.repository';
import { DeployService } from './deploy.service';
import { Deployment } from './deployment.entity';
import { DeploymentFile } from './deployment-file.entity';
import { DeploymentsController, LazyDeployController } from './deployments.controller';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentsService } from './deployments.service';
import { TtlSweeper } from './ttl-sweeper.service';

@Module({
  imports: [TypeOrmModule.forFeature([Deployment, DeploymentFile, Blob]), ProjectsModule],
  controllers: [LazyDeployController, DeploymentsController],
  providers: [DeployService, DeploymentsService, DeploymentsRepository, BlobsRepository, BlobStore, BlobVariants, TtlSweeper],
  exports: [DeployService, DeploymentsService, DeploymentsRepository, BlobStore, BlobVariants, TtlSweeper],
})
export class DeploymentsModule {}
