import { Body, Controller, HttpCode, HttpException, HttpStatus, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { clientAddress } from '../common/client-address';
import { EmptyBodyDto } from '../common/empty-body.dto';
import { badRequest } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { AuthService } from './auth.service';
import { AcceptedView, LoginView, RegisterView, TokenPairView, VerifiedEmailView } from './auth.view';
import { LoginDto, PasswordResetConfirmDto, PasswordResetDto, RefreshDto, RegisterDto, VerifyEmailDto } from './dto/auth.dto';
import { ReauthenticateDto } from './dto/reauthenticate.dto';
import { PasskeySignInDto } from './passkeys/dto/passkey.dto';
import { PasskeysService } from './passkeys/passkeys.service';
import { AccountRecoveryService } from './recovery/account-recovery.service';
import {
  duplicateRefreshCookie,
  readRefreshCookies,
  refreshCookie,
  type RefreshCookieScheme,
  refreshCookieScheme,
  retiredCookieDeletion,
  SESSION_MODE_HEADER,
  sessionMode,
} from './sessions/session-cookie';
import { sessionMarkerCookie } from './sessions/session-marker';
import { SecondFactorDto } from './two-factor/two-factor.dto';

const SESSION_MODE = ApiHeader({
  name: 'X-Session-Mode',
  required: false,
  enum: ['cookie'],
  description:
    '`cookie`: the refresh token goes in an HttpOnly, SameSite=Strict cookie instead of the body (the dashboard): `__Host-statichost_refresh` ' +
    '(Secure, Path=/) when the public scheme is https, `statichost_refresh` (Path=/auth) under http. See docs/security.md',
});

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly recovery: AccountRecoveryService,
    private readonly config: AppConfig,
    private readonly passkeys: PasskeysService,
  ) {}

  @Post('register')
  // `invalid_session_mode`: an X-Session-Mode other than `cookie` (src/auth/sessions/session-cookie.ts).
  @Endpoint({
    id: 'register',
    public: true,
    audit: 'workspace.created',
    errors: { 400: ['invalid_session_mode'], 403: ['sso_required'], 409: ['email_taken'], 429: ['rate_limited'], 503: ['password_hashing_busy'] },
  })
  @ApiOperation({
    summary: 'Create an account with its own workspace, and sign in',
    description:
      'Rate-limited per email and client address with the other mail-sending requests (it mails a verification link): 429 with Retry-After. ' +
      "An email whose domain a workspace's enforced single sign-on holds answers 403 `sso_required` with `ssoUrl`: that provider creates the account at its first sign-in.",
  })
  @SESSION_MODE
  @ApiCreatedResponse({ type: RegisterView })
  async register(@Body() dto: RegisterDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<RegisterView> {
    const mode = sessionMode(req.headers[SESSION_MODE_HEADER]);
    return this.deliver(mode, await this.auth.register(dto, this.ip(req)), req, res);
  }

  @Post('login')
  @Endpoint({
    id: 'login',
    public: true,
    audit: 'user.signed_in',
    // `sso_required` (src/sso): the email's domain signs in through its workspace's enforced single sign-on.
    errors: {
      400: ['invalid_session_mode'],
      401: ['invalid_login', 'second_factor_required'],
      403: ['sso_required'],
      429: ['rate_limited'],
      503: ['password_hashing_busy'],
    },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Sign in: an access JWT and a refresh token',
    description:
      'Failed attempts are counted per account and client address, per account, and per client address across all accounts; past any limit the answer is 429 with Retry-After, even for the right password. ' +
      'With a second factor on, the right password answers 401 `second_factor_required` with `challenge` and `methods` (and no tokens): finish at POST /auth/login/second-factor.',
  })
  @SESSION_MODE
  @ApiOkResponse({ type: LoginView })
  async login(@Body() dto: LoginDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<LoginView> {
    const mode = sessionMode(req.headers[SESSION_MODE_HEADER]);
    return this.deliver(mode, await this.auth.login(dto, this.ip(req)), req, res);
  }

  @Post('verify-email')
  @Endpoint({
    id: 'verifyEmail',
    public: true,
    errors: { 400: ['invalid_token', 'token_expired', 'token_used'], 409: ['email_taken'] },
    audit: 'user.email_verified',
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Confirm an email address with the single-use token mailed to it (24 h)' })
  @ApiOkResponse({ type: VerifiedEmailView })
  async verifyEmail(@Body() dto: VerifyEmailDto): Promise<VerifiedEmailView> {
    return { user: await this.recovery.verifyEmail(dto.token) };
  }

  @Post('verify-email/resend')
  @Endpoint({
    id: 'resendVerificationEmail',
    credential: 'user',
    audit: { none: 'mails a new link to the address the account already has; nothing changes until it is followed (user.email_verified)' },
    workspaceOptional: true,
    errors: { 409: ['email_already_verified'], 429: ['rate_limited'] },
  })
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: "Mail a new verification link to the signed-in user's address (rate-limited)" })
  @ApiAcceptedResponse({ type: AcceptedView })
  async resendVerification(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Body() _body: EmptyBodyDto): Promise<AcceptedView> {
    await this.recovery.resendVerification(principal.userId!, this.ip(req));
    return { message: 'A new verification link is on its way' };
  }

  @Post('password-reset')
  @Endpoint({
    id: 'requestPasswordReset',
    public: true,
    errors: { 429: ['rate_limited'] },
    // An entry would tell which emails have an account (the answer must not); the reset itself is audited.
    audit: { none: 'mails a link when the account exists; nothing changes until it is used (user.password_reset)' },
  })
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
  @Endpoint({
    id: 'confirmPasswordReset',
    public: true,
    errors: { 400: ['invalid_token', 'token_expired', 'token_used'], 503: ['password_hashing_busy'] },
    audit: 'user.password_reset',
  })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Set a new password with the mailed token; every session and refresh token of the account ends' })
  @ApiNoContentResponse()
  async confirmPasswordReset(@Body() dto: PasswordResetConfirmDto): Promise<void> {
    await this.recovery.confirmReset(dto.token, dto.password);
  }

  @Post('refresh')
  // `duplicate_refresh_cookie`: the refresh cookie twice in one request (one planted by a sibling host; src/auth/sessions/session-cookie.ts).
  @Endpoint({
    id: 'refresh',
    public: true,
    errors: { 400: ['invalid_session_mode', 'duplicate_refresh_cookie'], 401: ['invalid_refresh_token'] },
    audit: { none: 'rotates a session’s own refresh token every few minutes; the sign-in that started the session is audited' },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Exchange a refresh token for a new pair',
    description:
      'Refresh tokens are single use. Presenting one a second time ends the whole session. ' +
      'In cookie mode (`X-Session-Mode: cookie`) the token is read from the cookie only, and the new one replaces it there; ' +
      'a request carrying that cookie twice (one planted by another host under a shared parent domain) is refused and the cookie deleted.',
  })
  @SESSION_MODE
  @ApiOkResponse({ type: TokenPairView })
  async refresh(@Body() dto: RefreshDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<TokenPairView> {
    const mode = sessionMode(req.headers[SESSION_MODE_HEADER]);
    if (mode === 'body') {
      if (!dto.refreshToken) throw badRequest('refreshToken must not be empty (or send X-Session-Mode: cookie to use the session cookie)');
      return this.auth.refresh(dto.refreshToken);
    }
    const cookies = readRefreshCookies(req.headers.cookie, this.scheme);
    try {
      if (cookies.count > 1) throw duplicateRefreshCookie(this.scheme, cookies.count);
      return this.deliver(mode, await this.auth.refresh(cookies.token ?? ''), req, res);
    } catch (err) {
      // A dead session's cookie is of no further use: drop it rather than resend it on every load.
      // Only when the session is what failed (a 4xx): a database outage (503) ends no session, and
      // dropping the marker then would keep the dashboard from even trying once the service is back.
      if (err instanceof HttpException && err.getStatus() < 500) {
        res.setHeader('Set-Cookie', this.setCookies(undefined, req));
        this.marker(res, false);
      }
      throw err;
    }
  }

  @Post('logout')
  @Endpoint({
    id: 'logout',
    credential: 'user',
    workspaceOptional: true,
    errors: { 400: ['invalid_session_mode'] },
    audit: { none: 'ends the caller’s own session, which only takes access away' },
  })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "End the JWT's session: its refresh token and access JWTs stop working" })
  @SESSION_MODE
  @ApiNoContentResponse()
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Body() _body: EmptyBodyDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const mode = sessionMode(req.headers[SESSION_MODE_HEADER]);
    // The session ended is the access JWT's, never the cookie's, so a second (planted) refresh
    // cookie leaves nothing to guess here: refusing would only leave the session running.
    await this.auth.logout(principal);
    if (mode === 'cookie') {
      res.setHeader('Set-Cookie', this.setCookies(undefined, req));
      this.marker(res, false);
    }
  }

  @Post('reauthenticate')
  @Endpoint({
    id: 'reauthenticate',
    credential: 'user',
    workspaceOptional: true,
    audit: 'user.reauthenticated',
    errors: { 403: ['reauthentication_failed', 'sso_required'], 429: ['rate_limited'], 503: ['password_hashing_busy'] },
  })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Confirm it is you: this session may then change your email, passkeys and TOTP for 15 minutes',
    description:
      'Those changes answer 403 `reauthentication_required` in a session whose sign-in is older than 15 minutes, so a stolen session cannot make the account its own. ' +
      'Send what a sign-in of your account asks for: `password`, with its second factor when it has one (`code`, a current TOTP code or a recovery code; or `passkey`); ' +
      'or `passkey` alone, an answer to POST /auth/passkeys/authentication-options with you verified by the authenticator (PIN, biometrics). ' +
      'A wrong one is 403 `reauthentication_failed` and counts as a failed sign-in (429 with Retry-After past the limit). ' +
      'An account whose domain enforces single sign-on signs in through it again instead (403 `sso_required`).',
  })
  @ApiNoContentResponse()
  async reauthenticate(@CurrentPrincipal() principal: Principal, @Body() dto: ReauthenticateDto, @Req() req: Request): Promise<void> {
    await this.auth.reauthenticate(principal, dto, clientAddress(req, this.config.trustProxy));
  }

  @Post('passkeys/authentication')
  // Here rather than in PasskeysController: a sign-in answers as POST /auth/login does, cookie mode included.
  @Endpoint({
    id: 'signInWithPasskey',
    public: true,
    audit: 'user.signed_in',
    errors: { 400: ['invalid_session_mode'], 401: ['passkey_not_accepted'], 403: ['sso_required'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Sign in with a passkey (passwordless): an access JWT and a refresh token',
    description:
      'The answer to POST /auth/passkeys/authentication-options. A complete sign-in: the authenticator must have verified the person (PIN, biometrics), ' +
      'so no second factor is asked. Any refusal (unknown, expired or used challenge, unknown passkey, wrong origin, bad signature) is 401 passkey_not_accepted. ' +
      'A passkey of an account whose email domain enforces single sign-on answers 403 `sso_required`, as POST /auth/login does.',
  })
  @SESSION_MODE
  @ApiOkResponse({ type: LoginView })
  async signInWithPasskey(@Body() dto: PasskeySignInDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<LoginView> {
    const mode = sessionMode(req.headers[SESSION_MODE_HEADER]);
    return this.deliver(mode, await this.passkeys.signIn(dto.response), req, res);
  }

  @Post('login/second-factor')
  @Endpoint({
    id: 'loginSecondFactor',
    public: true,
    audit: 'user.signed_in',
    errors: { 400: ['invalid_session_mode'], 401: ['invalid_login_challenge', 'invalid_second_factor'], 403: ['sso_required'], 429: ['rate_limited'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Finish a sign-in with the account's second factor: the same answer as POST /auth/login",
    description:
      'Send the `challenge` of the 401 `second_factor_required` and exactly one of `totp`, `recoveryCode`, `passkey`. The challenge lives 5 minutes and is used up by the answer that signs in; ' +
      'a wrong answer counts with the failed sign-ins of the account (429 with Retry-After past the limits). A TOTP code is accepted once. ' +
      'An account whose email domain began enforcing single sign-on since the challenge was handed out gets 403 `sso_required` (nothing used up).',
  })
  @SESSION_MODE
  @ApiOkResponse({ type: LoginView })
  async loginSecondFactor(@Body() dto: SecondFactorDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<LoginView> {
    const mode = sessionMode(req.headers[SESSION_MODE_HEADER]);
    return this.deliver(mode, await this.auth.loginSecondFactor(dto, this.ip(req)), req, res);
  }

  /** The answer as the mode wants it: in cookie mode the refresh token moves from the body to the cookie. */
  private deliver<T extends { refreshToken?: string }>(mode: 'body' | 'cookie', answer: T, req: Request, res: Response): T {
    if (mode === 'body') return answer;
    const { refreshToken, ...rest } = answer;
    res.setHeader('Set-Cookie', this.setCookies(refreshToken, req));
    this.marker(res, true);
    return rest as T;
  }

  /** The dashboard's hint that a cookie session exists (session-marker.ts), added beside the refresh cookie. */
  private marker(res: Response, present: boolean): void {
    res.append(
      'Set-Cookie',
      sessionMarkerCookie(present, { secure: this.config.PUBLIC_SCHEME === 'https', maxAgeSeconds: this.config.REFRESH_TOKEN_TTL_DAYS * 86_400 }),
    );
  }

  private get scheme(): RefreshCookieScheme {
    return refreshCookieScheme(this.config.PUBLIC_SCHEME === 'https');
  }

  /** The refresh cookie set (or deleted), and the retired one deleted when the request still carries it. */
  private setCookies(token: string | undefined, req: Request): string[] {
    const scheme = this.scheme;
    const cookies = [refreshCookie(token, { scheme, maxAgeSeconds: this.config.REFRESH_TOKEN_TTL_DAYS * 86_400 })];
    const retired = readRefreshCookies(req.headers.cookie, scheme).retired ? retiredCookieDeletion(scheme) : undefined;
    return retired ? [...cookies, retired] : cookies;
  }

  private ip(req: Request): string {
    return clientAddress(req, this.config.trustProxy);
  }
}
