import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { Blob } from './blob.entity';
import { BlobCollector } from './blob-collector.service';
import { BlobStore } from './blob-store.service';
import { BlobVariants } from './blob-variants.service';
import { BlobsController } from './blobs.controller';
import { BlobsRepository } from './blobs.repository';
import { BlobsService } from './blobs.service';

/**
 * Content-addressed file bodies shared by every deployment: the store (claims, uploads,
 * collection) and its periodic collector, their compressed copies, and PUT /v1/blobs/:sha256
 * for digest-first deploys.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Blob])],
  controllers: [BlobsController],
  providers: [BlobsService, BlobsRepository, BlobStore, BlobVariants, BlobCollector],
  exports: [BlobStore, BlobVariants],
})
export class BlobsModule {}
