import { Body, Controller, Get, Patch, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { clientAddress } from '../common/client-address';
import { unauthorized } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { UserView, userView } from '../users/user.view';
import { UsersService } from '../users/users.service';
import { UpdateMeDto } from './dto/update-me.dto';
import { AccountRecoveryService } from './recovery/account-recovery.service';

@ApiTags('users')
@Controller('users')
export class UsersMeController {
  constructor(
    private readonly users: UsersService,
    private readonly recovery: AccountRecoveryService,
    private readonly config: AppConfig,
  ) {}

  @Get('me')
  @Endpoint({ id: 'getCurrentUser', credential: 'user', workspaceOptional: true })
  @ApiOperation({ summary: 'The signed-in user, with whether their email is verified' })
  @ApiOkResponse({ type: UserView })
  async me(@CurrentPrincipal() principal: Principal): Promise<UserView> {
    const user = await this.users.findById(principal.userId!);
    if (!user) throw unauthorized();
    return userView(user);
  }

  @Patch('me')
  @Endpoint({
    id: 'updateCurrentUser',
    credential: 'user',
    workspaceOptional: true,
    errors: { 403: ['reauthentication_required'], 409: ['email_taken'], 429: ['rate_limited'] },
    audit: 'user.updated',
  })
  @ApiOperation({
    summary: 'Change your name at once, or your email once the new address is confirmed',
    description:
      'A new email is not applied here: a link is mailed to it (rate-limited like resends), and following it (POST /auth/verify-email) moves the account to it, verified, and tells the old address. The answer is the user as it is now. ' +
      'Asking for a new email needs a sign-in of the last 15 minutes (403 `reauthentication_required`: POST /auth/reauthenticate); the name does not.',
  })
  @ApiOkResponse({ type: UserView })
  updateMe(@CurrentPrincipal() principal: Principal, @Body() dto: UpdateMeDto, @Req() req: Request): Promise<UserView> {
    return this.recovery.updateMe(principal.userId!, principal.sessionId, dto, clientAddress(req, this.config.trustProxy));
  }
}
