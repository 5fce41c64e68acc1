import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Put, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { Request } from 'express';

import { CurrentPrincipal } from '../../access/decorators';
import { clientAddress } from '../../common/client-address';
import { MAX_PASSWORD, NewPasswordField } from '../../common/dto-fields';
import { AppConfig } from '../../config/app-config';
import { Endpoint } from '../../openapi/endpoint';
import type { Principal } from '../../shared/principal';
import { AccountRecoveryService } from '../recovery/account-recovery.service';
import { SessionListView } from './session.view';
import { SessionsService } from './sessions.service';

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'currentPassword must not be empty' })
  @MaxLength(MAX_PASSWORD)
  currentPassword: string;

  @NewPasswordField({ example: 'a new and longer passphrase' })
  newPassword: string;
}

/** The signed-in person's sessions and password (issue 32): only with their own JWT, never an API token. */
@ApiTags('auth')
@Controller('auth')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly recovery: AccountRecoveryService,
    private readonly config: AppConfig,
  ) {}

  @Get('sessions')
  @Endpoint({ id: 'listSessions', credential: 'user', workspaceOptional: true })
  @ApiOperation({ summary: 'Your open sign-in sessions, most recently used first' })
  @ApiOkResponse({ type: SessionListView })
  async list(@CurrentPrincipal() principal: Principal): Promise<SessionListView> {
    return { data: await this.sessions.list(principal.userId!, principal.sessionId) };
  }

  @Delete('sessions/:sessionId')
  @Endpoint({ id: 'endSession', credential: 'user', workspaceOptional: true, audit: 'session.ended', errors: { 404: ['not_found'] } })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'End one of your sessions: its refresh token and access JWTs stop working at once' })
  @ApiNoContentResponse()
  async end(@CurrentPrincipal() principal: Principal, @Param('sessionId') sessionId: string): Promise<void> {
    await this.sessions.end(principal.userId!, sessionId);
  }

  @Delete('sessions')
  @Endpoint({ id: 'endOtherSessions', credential: 'user', workspaceOptional: true, audit: 'session.ended' })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'End every one of your sessions but this one' })
  @ApiNoContentResponse()
  async endOthers(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.sessions.endOthersNow(principal.userId!, principal.sessionId ?? null);
  }

  @Put('password')
  @Endpoint({
    id: 'changePassword',
    credential: 'user',
    workspaceOptional: true,
    audit: 'user.password_changed',
    errors: { 403: ['wrong_password'], 429: ['rate_limited'], 503: ['password_hashing_busy'] },
  })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Change your password; every other session ends',
    description: 'A wrong `currentPassword` is 403 `wrong_password` and counts as a failed sign-in of the account (429 with Retry-After past the limit).',
  })
  @ApiNoContentResponse()
  async changePassword(@CurrentPrincipal() principal: Principal, @Body() dto: ChangePasswordDto, @Req() req: Request): Promise<void> {
    await this.recovery.changePassword(principal.userId!, principal.sessionId, dto, clientAddress(req, this.config.trustProxy));
  }
}
