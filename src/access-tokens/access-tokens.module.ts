import { Global, Module } from '@nestjs/common';

import { ProjectsModule } from '../projects/projects.module';
import { MEMBER_TOKENS } from '../workspaces/member-tokens';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AccessTokensController, MeController } from './access-tokens.controller';
import { AccessTokensRepository } from './access-tokens.repository';
import { AccessTokensService } from './access-tokens.service';

/**
 * Global: it binds MEMBER_TOKENS, the port WorkspacesModule's member changes call, and
 * workspaces/ sits below access-tokens/ so it cannot import this module (issue 27).
 */
@Global()
@Module({
  imports: [ProjectsModule, WorkspacesModule],
  controllers: [AccessTokensController, MeController],
  providers: [AccessTokensService, AccessTokensRepository, { provide: MEMBER_TOKENS, useExisting: AccessTokensService }],
  exports: [AccessTokensService, MEMBER_TOKENS],
})
export class AccessTokensModule {}
