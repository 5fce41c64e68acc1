import { Body, Controller, Get, HttpCode, HttpStatus, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../../access/decorators';
import { EmptyBodyDto } from '../../common/empty-body.dto';
import { DeleteRoute } from '../../openapi/api-decorators';
import { Endpoint } from '../../openapi/endpoint';
import type { Principal } from '../../shared/principal';
import { SessionsService } from '../sessions/sessions.service';
import { RegisterPasskeyDto, RenamePasskeyDto } from './dto/passkey.dto';
import { PasskeyListView, PasskeyView } from './passkey.view';
import { MAX_PASSKEYS_PER_USER, PasskeysService } from './passkeys.service';

/** The signed-in person's own passkeys: any workspace or none. */
const SELF: { credential: 'user'; workspaceOptional: true } = { credential: 'user', workspaceOptional: true };

/** WebAuthn options are the library's JSON, passed to @simplewebauthn/browser as they are. */
const OPTIONS_SCHEMA = (summary: string) => ({
  type: 'object' as const,
  additionalProperties: true,
  description: summary,
  required: ['challenge'],
  properties: { challenge: { type: 'string', description: 'base64url; answerable once, for 5 minutes' } },
});

@ApiTags('auth')
@Controller('auth/passkeys')
export class PasskeysController {
  constructor(
    private readonly passkeys: PasskeysService,
    private readonly sessions: SessionsService,
  ) {}

  @Post('registration-options')
  @Endpoint({
    id: 'passkeyRegistrationOptions',
    ...SELF,
    audit: { none: 'issues a challenge; the passkey is recorded when registered' },
    errors: { 403: ['reauthentication_required'], 409: ['passkey_limit_reached'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'WebAuthn creation options to register a passkey (for startRegistration of @simplewebauthn/browser)',
    description:
      `A discoverable credential is required; the passkeys the user already has are excluded. One account holds at most ${MAX_PASSKEYS_PER_USER} (409 \`passkey_limit_reached\`). ` +
      'Adding or deleting a passkey needs a sign-in of the last 15 minutes (403 `reauthentication_required`: POST /auth/reauthenticate).',
  })
  @ApiOkResponse({ schema: OPTIONS_SCHEMA('PublicKeyCredentialCreationOptionsJSON') })
  async registrationOptions(@CurrentPrincipal() principal: Principal, @Body() _body: EmptyBodyDto) {
    await this.sessions.requireRecentSignIn(principal.userId!, principal.sessionId, 'Adding a passkey');
    return this.passkeys.registrationOptions(principal.userId!);
  }

  @Post('registration')
  @Endpoint({
    id: 'registerPasskey',
    ...SELF,
    audit: 'passkey.registered',
    errors: { 400: ['invalid_passkey_response'], 403: ['reauthentication_required'], 409: ['passkey_already_registered', 'passkey_limit_reached'] },
  })
  @ApiOperation({ summary: 'Register a passkey with the answer to the creation options' })
  @ApiCreatedResponse({ type: PasskeyView })
  async register(@CurrentPrincipal() principal: Principal, @Body() dto: RegisterPasskeyDto): Promise<PasskeyView> {
    // A passkey signs in alone: one added by a stolen session would outlast a password change.
    await this.sessions.requireRecentSignIn(principal.userId!, principal.sessionId, 'Adding a passkey');
    return this.passkeys.register(principal.userId!, dto);
  }

  @Get()
  @Endpoint({ id: 'listPasskeys', ...SELF })
  @ApiOperation({ summary: 'The signed-in user’s passkeys, oldest first' })
  @ApiOkResponse({ type: PasskeyListView })
  list(@CurrentPrincipal() principal: Principal): Promise<PasskeyListView> {
    return this.passkeys.list(principal.userId!);
  }

  @Patch(':passkeyId')
  @Endpoint({ id: 'renamePasskey', ...SELF, audit: 'passkey.renamed', errors: { 404: ['passkey_not_found'] } })
  @ApiOperation({ summary: 'Rename a passkey' })
  @ApiOkResponse({ type: PasskeyView })
  rename(@CurrentPrincipal() principal: Principal, @Param('passkeyId') passkeyId: string, @Body() dto: RenamePasskeyDto): Promise<PasskeyView> {
    return this.passkeys.rename(principal.userId!, passkeyId, dto.name);
  }

  @DeleteRoute(':passkeyId', 'Delete a passkey: it can no longer sign in (the authenticator still holds the key until removed there)')
  @Endpoint({ id: 'deletePasskey', ...SELF, audit: 'passkey.deleted', errors: { 403: ['reauthentication_required'], 404: ['passkey_not_found'] } })
  async remove(@CurrentPrincipal() principal: Principal, @Param('passkeyId') passkeyId: string): Promise<void> {
    await this.sessions.requireRecentSignIn(principal.userId!, principal.sessionId, 'Deleting a passkey');
    await this.passkeys.remove(principal.userId!, passkeyId);
  }

  @Post('authentication-options')
  @Endpoint({ id: 'passkeyAuthenticationOptions', public: true, audit: { none: 'issues a challenge; the sign-in is recorded when answered' } })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'WebAuthn request options to sign in with a passkey (for startAuthentication of @simplewebauthn/browser)',
    description:
      'No allowCredentials: the browser offers the discoverable passkeys it holds for this site. The same options serve POST /auth/passkeys/authentication ' +
      '(a passwordless sign-in) and the `passkey` answer of POST /auth/login/second-factor.',
  })
  @ApiOkResponse({ schema: OPTIONS_SCHEMA('PublicKeyCredentialRequestOptionsJSON') })
  authenticationOptions(@Body() _body: EmptyBodyDto) {
    return this.passkeys.authenticationOptions();
  }
}
