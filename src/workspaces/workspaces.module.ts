import { Module } from '@nestjs/common';

import { UsersModule } from '../users/users.module';
import { MembersService } from './members.service';
import { InvitationsController, MembersController, WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

/** Members' tokens are revoked through MEMBER_TOKENS, which the global AccessTokensModule binds. */
@Module({
  imports: [UsersModule],
  controllers: [WorkspacesController, MembersController, InvitationsController],
  providers: [WorkspacesService, MembersService, WorkspacesRepository],
  exports: [WorkspacesService, MembersService, WorkspacesRepository],
})
export class WorkspacesModule {}
