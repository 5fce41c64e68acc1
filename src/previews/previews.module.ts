import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ProjectsModule } from '../projects/projects.module';
import { PreviewAlias } from './preview-alias.entity';
import { PreviewsController } from './previews.controller';
import { PreviewsRepository } from './previews.repository';
import { PreviewsService } from './previews.service';

@Module({
  imports: [TypeOrmModule.forFeature([PreviewAlias]), ProjectsModule],
  controllers: [PreviewsController],
  providers: [PreviewsService, PreviewsRepository],
  exports: [PreviewsService, PreviewsRepository],
})
export class PreviewsModule {}
