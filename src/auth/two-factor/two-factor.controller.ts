import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';

import { CurrentPrincipal } from '../../access/decorators';
import { clientAddress } from '../../common/client-address';
import { EmptyBodyDto } from '../../common/empty-body.dto';
import { AppConfig } from '../../config/app-config';
import { Endpoint } from '../../openapi/endpoint';
import type { Principal } from '../../shared/principal';
import { SessionsService } from '../sessions/sessions.service';
import { DisableTotpDto, RecoveryCodesDto, TotpCodeDto } from './two-factor.dto';
import { TwoFactorService } from './two-factor.service';
import { RecoveryCodesView, TotpEnrolmentView, TwoFactorStatusView } from './two-factor.view';

/** The signed-in user's second factors (issue 32). Passkeys have their own routes (/auth/passkeys). */
@ApiTags('auth')
@Controller('auth/2fa')
export class TwoFactorController {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Endpoint({ id: 'getTwoFactor', credential: 'user', workspaceOptional: true })
  @ApiOperation({ summary: "The signed-in user's second factors and what a sign-in asks for" })
  @ApiOkResponse({ type: TwoFactorStatusView })
  status(@CurrentPrincipal() principal: Principal): Promise<TwoFactorStatusView> {
    return this.twoFactor.status(principal.userId!);
  }

  @Post('totp')
  @Endpoint({
    id: 'startTotp',
    credential: 'user',
    workspaceOptional: true,
    audit: { none: 'a pending enrolment turns nothing on; two_factor.enabled is recorded when a code confirms it' },
    errors: { 403: ['reauthentication_required'], 409: ['totp_already_enabled'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Start TOTP enrolment: a new secret, its otpauth:// URL and QR code',
    description:
      'Nothing changes at sign-in until POST /auth/2fa/totp/confirm; starting again replaces an unconfirmed enrolment. ' +
      'Like the confirmation, it needs a sign-in of the last 15 minutes (403 `reauthentication_required`: POST /auth/reauthenticate).',
  })
  @ApiOkResponse({ type: TotpEnrolmentView })
  async start(@CurrentPrincipal() principal: Principal, @Body() _body: EmptyBodyDto): Promise<TotpEnrolmentView> {
    await this.sessions.requireRecentSignIn(principal.userId!, principal.sessionId, 'Turning TOTP on');
    return this.twoFactor.startTotp(principal.userId!);
  }

  @Post('totp/confirm')
  @Endpoint({
    id: 'confirmTotp',
    credential: 'user',
    workspaceOptional: true,
    audit: 'two_factor.enabled',
    errors: { 400: ['invalid_totp_code'], 403: ['reauthentication_required'], 409: ['totp_already_enabled', 'totp_not_started'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Turn TOTP on with a code from the authenticator; answers the ten recovery codes, shown only now' })
  @ApiOkResponse({ type: RecoveryCodesView })
  async confirm(@CurrentPrincipal() principal: Principal, @Body() dto: TotpCodeDto): Promise<RecoveryCodesView> {
    // A stolen session must not put the person's sign-in behind a code only it has.
    await this.sessions.requireRecentSignIn(principal.userId!, principal.sessionId, 'Turning TOTP on');
    return this.twoFactor.confirmTotp(principal.userId!, dto.code);
  }

  @Delete('totp')
  @Endpoint({
    id: 'disableTotp',
    credential: 'user',
    workspaceOptional: true,
    audit: 'two_factor.disabled',
    errors: { 400: ['invalid_totp_code'], 401: ['invalid_login'], 409: ['totp_not_enabled'], 429: ['rate_limited'], 503: ['password_hashing_busy'] },
  })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Turn TOTP off (and its recovery codes): needs the password and a current code or a recovery code',
    description: 'Wrong passwords and wrong codes count with the sign-in limits: 429 with Retry-After past them, even for the right ones.',
  })
  @ApiNoContentResponse()
  async disable(@CurrentPrincipal() principal: Principal, @Body() dto: DisableTotpDto, @Req() req: Request): Promise<void> {
    await this.twoFactor.disableTotp(principal.userId!, dto.password, dto.code, clientAddress(req, this.config.trustProxy));
  }

  @Post('recovery-codes')
  @Endpoint({
    id: 'regenerateRecoveryCodes',
    credential: 'user',
    workspaceOptional: true,
    audit: 'two_factor.recovery_codes_regenerated',
    errors: { 400: ['invalid_totp_code'], 409: ['totp_not_enabled'], 429: ['rate_limited'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'A new set of ten recovery codes (the old ones stop working); needs a current code or a recovery code',
    description: 'Wrong codes count with the sign-in limits: 429 with Retry-After past them, even for the right code.',
  })
  @ApiOkResponse({ type: RecoveryCodesView })
  regenerate(@CurrentPrincipal() principal: Principal, @Body() dto: RecoveryCodesDto, @Req() req: Request): Promise<RecoveryCodesView> {
    return this.twoFactor.regenerateRecoveryCodes(principal.userId!, dto.code, clientAddress(req, this.config.trustProxy));
  }
}
