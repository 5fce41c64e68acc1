import { Module } from '@nestjs/common';
import { DeploymentsModule } from '../deployments/deployments.module';
import { BlobsController } from './blobs.controller';
import { BlobsService } from './blobs.service';

@Module({
  imports: [DeploymentsModule],
  controllers: [BlobsController],
  providers: [BlobsService],
})
export class BlobsModule {}
