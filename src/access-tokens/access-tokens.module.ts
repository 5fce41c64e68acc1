import { Module } from '@nestjs/common';

import { ProjectsModule } from '../projects/projects.module';
import { AccessTokensController, MeController } from './access-tokens.controller';
import { AccessTokensRepository } from './access-tokens.repository';
import { AccessTokensService } from './access-tokens.service';

@Module({
  imports: [ProjectsModule],
  controllers: [AccessTokensController, MeController],
  providers: [AccessTokensService, AccessTokensRepository],
  exports: [AccessTokensService],
})
export class AccessTokensModule {}
