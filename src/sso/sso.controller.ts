import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { refreshCookie, refreshCookieScheme } from '../auth/sessions/session-cookie';
import { sessionMarkerCookie } from '../auth/sessions/session-marker';
import { clientAddress } from '../common/client-address';
import { EmptyBodyDto } from '../common/empty-body.dto';
import { AppConfig } from '../config/app-config';
import { DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { PutSsoDto, SsoStartQueryDto } from './dto/sso.dto';
import { SsoService } from './sso.service';
import { SsoDomainVerificationView, SsoView } from './sso.view';
import { readSsoBrowserCookie, ssoBrowserCookie } from './sso-cookie';
import { SSO_LOGIN_TTL_SECONDS, SsoLoginService } from './sso-login.service';
import { signInErrorPath } from './sso-rules';

@ApiTags('sso')
@Controller('workspaces/:workspaceId/sso')
export class SsoController {
  constructor(private readonly sso: SsoService) {}

  @Get()
  @Endpoint({ id: 'getSso', credential: 'user', roles: ['owner', 'admin'], workspaceWide: true, errors: { 404: ['sso_not_configured'] } })
  @ApiOperation({ summary: "The workspace's single sign-on: provider, claimed email domains and their TXT records (never the client secret)" })
  @ApiOkResponse({ type: SsoView })
  get(@Param('workspaceId') workspaceId: string): Promise<SsoView> {
    return this.sso.get(workspaceId);
  }

  @Put()
  @Endpoint({
    id: 'putSso',
    credential: 'user',
    roles: ['owner'],
    workspaceWide: true,
    audit: 'sso.updated',
    errors: { 400: ['client_secret_required', 'sso_discovery_failed'], 409: ['domain_claimed'] },
  })
  @ApiOperation({
    summary: 'Set up (or change) single sign-on over OpenID Connect',
    description:
      "The issuer's discovery document is fetched first (400 naming `issuer` when it fails). `clientSecret` is required the first time and kept when omitted; " +
      'it is stored encrypted and never returned. Each email domain is claimed once its TXT record is verified (POST …/domains/{domain}/verify).',
  })
  @ApiOkResponse({ type: SsoView })
  put(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string, @Body() dto: PutSsoDto): Promise<SsoView> {
    return this.sso.put(principal, workspaceId, dto);
  }

  @DeleteRoute('', "Remove the workspace's single sign-on; its domains are released and password sign-in opens again")
  @Endpoint({ id: 'deleteSso', credential: 'user', roles: ['owner'], workspaceWide: true, audit: 'sso.deleted', errors: { 404: ['sso_not_configured'] } })
  delete(@Param('workspaceId') workspaceId: string): Promise<void> {
    return this.sso.delete(workspaceId);
  }

  @Post('domains/:domain/verify')
  @Endpoint({
    id: 'verifySsoDomain',
    credential: 'user',
    roles: ['owner'],
    workspaceWide: true,
    audit: 'sso.domain_verified',
    errors: { 404: ['sso_not_configured', 'sso_domain_not_listed'], 409: ['domain_claimed'], 503: ['dns_timeout', 'dns_unavailable'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Look up an email domain's TXT record now; found, the domain is claimed for this workspace's SSO",
    description: 'A domain is claimed by one workspace only (409 `domain_claimed`). Not found: 200 with `verified: false` and the reason.',
  })
  @ApiOkResponse({ type: SsoDomainVerificationView })
  verify(@Param('workspaceId') workspaceId: string, @Param('domain') domain: string, @Body() _body: EmptyBodyDto): Promise<SsoDomainVerificationView> {
    return this.sso.verifyDomain(workspaceId, domain);
  }
}

/** The browser's side of SSO: navigations answered with redirects, not JSON. */
@ApiTags('sso')
@Controller('auth/sso')
export class SsoSignInController {
  constructor(
    private readonly login: SsoLoginService,
    private readonly config: AppConfig,
  ) {}

  @Get('start')
  @Endpoint({ id: 'startSso', public: true, errors: { 404: ['sso_not_configured'], 429: ['rate_limited'] } })
  @ApiOperation({
    summary: "Go to the OpenID provider of the workspace that verified the email's domain (or of `workspace`)",
    description:
      'A browser navigation: 302 to the provider, with PKCE (S256), `state` and `nonce`; the provider sends the person back to /auth/sso/callback. ' +
      'Sets a cookie binding the sign-in to this browser (`__Host-statichost_sso` over HTTPS, `statichost_sso` otherwise; HttpOnly, 10 minutes), which the callback requires. ' +
      'Counted per client address (SSO_START_MAX_PER_ADDRESS in SSO_START_WINDOW_SECONDS): past it, 429 with Retry-After.',
  })
  @ApiResponse({ status: 302, description: "To the provider's authorization endpoint" })
  async start(@Query() query: SsoStartQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const started = await this.login.start(query, clientAddress(req, this.config.trustProxy));
    // A secret for this browser alone: no shared cache may keep the answer.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Set-Cookie', ssoBrowserCookie(started.browserValue, { https: this.https, maxAgeSeconds: SSO_LOGIN_TTL_SECONDS }));
    res.redirect(302, started.url);
  }

  @Get('callback')
  @Endpoint({ id: 'ssoCallback', public: true, audit: 'user.signed_in' })
  @ApiOperation({
    summary: "The provider's answer: signs the person in (cookie mode) and goes to the dashboard",
    description:
      'The account is created on first sign-in (with the verified email) and joins the workspace with its SSO `defaultRole`. ' +
      'Refused (forged or used `state`, replayed code, wrong `nonce`, another client’s ID token, an unverified email or one outside the verified domains): ' +
      '302 to /app/sign-in?sso_error=<reason>, nothing signed in. Takes the provider’s query (`code`, `state`, `iss` or `error`) as it comes. ' +
      'Only in the browser that started the sign-in: without the cookie /auth/sso/start set there, `invalid_state` (login CSRF). The cookie is cleared whatever the outcome.',
  })
  @ApiResponse({ status: 302, description: 'To /app/ signed in, or to /app/sign-in?sso_error=<reason>' })
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    const queryString = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    // Single use like the state it guards, whatever the outcome (an error answer included): set before anything can fail.
    const forget = ssoBrowserCookie(undefined, { https: this.https, maxAgeSeconds: 0 });
    res.setHeader('Set-Cookie', forget);
    const outcome = await this.login.callback(queryString, readSsoBrowserCookie(req.headers.cookie, this.https));
    res.setHeader('Cache-Control', 'no-store');
    if (!outcome.ok) {
      res.redirect(302, signInErrorPath(outcome.error));
      return;
    }
    // The dashboard's cookie-mode session (src/auth/sessions/session-cookie.ts): it refreshes into an access JWT on load.
    const maxAgeSeconds = this.config.REFRESH_TOKEN_TTL_DAYS * 86_400;
    res.setHeader('Set-Cookie', [
      forget,
      refreshCookie(outcome.pair.refreshToken, { scheme: refreshCookieScheme(this.https), maxAgeSeconds }),
      sessionMarkerCookie(true, { secure: this.https, maxAgeSeconds }),
    ]);
    res.redirect(302, '/app/');
  }

  private get https(): boolean {
    return this.config.PUBLIC_SCHEME === 'https';
  }
}
