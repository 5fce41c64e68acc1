import { Module } from '@nestjs/common';

import { AccessTokensModule } from '../access-tokens/access-tokens.module';
import { UsersModule } from '../users/users.module';
import { MembersService } from './members.service';
import { InvitationsController, MembersController, WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [UsersModule, AccessTokensModule],
  controllers: [WorkspacesController, MembersController, InvitationsController],
  providers: [WorkspacesService, MembersService, WorkspacesRepository],
  exports: [WorkspacesService, MembersService, WorkspacesRepository],
})
export class WorkspacesModule {}
