import { Body, Controller, HttpCode, HttpStatus, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { clientAddress } from '../common/client-address';
import { AppConfig } from '../config/app-config';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountRecoveryService } from './account-recovery.service';
import { AuthService } from './auth.service';
import { AcceptedView, LoginView, RegisterView, TokenPairView, VerifiedEmailView } from './auth.view';
import { CredentialKind, CurrentPrincipal, Public, WorkspaceOptional } from './decorators';
import { LoginDto, PasswordResetConfirmDto, PasswordResetDto, RefreshDto, RegisterDto, VerifyEmailDto } from './dto/auth.dto';
import { EmptyBodyDto } from './dto/empty-body.dto';
import type { Principal } from './principal';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly recovery: AccountRecoveryService,
    private readonly config: AppConfig,
  ) {}

  @Post('register')
  @Public()
  @ApiOperation({ summary: 'Create an account with its own workspace, and sign in' })
  @ApiCreatedResponse({ type: RegisterView })
  register(@Body() dto: RegisterDto): Promise<RegisterView> {
    return this.auth.register(dto);
  }

  @Post('login')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Sign in: an access JWT and a refresh token',
    description: 'Failed attempts are counted per account and client address, and per account; past either limit the answer is 429 with Retry-After, even for the right password.',
  })
  @ApiOkResponse({ type: LoginView })
  login(@Body() dto: LoginDto, @Req() req: Request): Promise<LoginView> {
    return this.auth.login(dto, this.ip(req));
  }

  @Post('verify-email')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Confirm an email address with the single-use token mailed to it (24 h)' })
  @ApiOkResponse({ type: VerifiedEmailView })
  async verifyEmail(@Body() dto: VerifyEmailDto): Promise<VerifiedEmailView> {
    return { user: await this.recovery.verifyEmail(dto.token) };
  }

  @Post('verify-email/resend')
  @CredentialKind('user')
  @WorkspaceOptional()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: "Mail a new verification link to the signed-in user's address (rate-limited)" })
  @ApiAcceptedResponse({ type: AcceptedView })
  async resendVerification(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Body() _body: EmptyBodyDto): Promise<AcceptedView> {
    await this.recovery.resendVerification(principal.userId!, this.ip(req));
    return { message: 'A new verification link is on its way' };
  }

  @Post('password-reset')
  @Public()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Mail a single-use password reset link (1 h) if an account has this email',
    description: 'Always 202 with the same body, whether or not the account exists. Rate-limited per email and client address.',
  })
  @ApiAcceptedResponse({ type: AcceptedView })
  async requestPasswordReset(@Body() dto: PasswordResetDto, @Req() req: Request): Promise<AcceptedView> {
    await this.recovery.requestReset(dto.email, this.ip(req));
    return { message: 'If an account has this email, a link to reset its password is on its way' };
  }

  @Post('password-reset/confirm')
  @Public()
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Set a new password with the mailed token; every session and refresh token of the account ends' })
  @ApiNoContentResponse()
  async confirmPasswordReset(@Body() dto: PasswordResetConfirmDto): Promise<void> {
    await this.recovery.confirmReset(dto.token, dto.password);
  }

  @Post('refresh')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Exchange a refresh token for a new pair',
    description: 'Refresh tokens are single use. Presenting one a second time ends the whole session.',
  })
  @ApiOkResponse({ type: TokenPairView })
  refresh(@Body() dto: RefreshDto): Promise<TokenPairView> {
    return this.auth.refresh(dto);
  }

  @Post('logout')
  @CredentialKind('user')
  @WorkspaceOptional()
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "End the JWT's session: its refresh token and access JWTs stop working" })
  @ApiNoContentResponse()
  async logout(@CurrentPrincipal() principal: Principal, @Body() _body: EmptyBodyDto): Promise<void> {
    await this.auth.logout(principal);
  }

  private ip(req: Request): string {
    return clientAddress(req, this.config.TRUST_PROXY);
  }
}
