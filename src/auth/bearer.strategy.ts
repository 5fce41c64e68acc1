import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passport from 'passport';
import { Strategy as HttpBearerStrategy } from 'passport-http-bearer';
import { AccessTokensService } from '../access-tokens/access-tokens.service';
import { looksLikeTokenSecret } from '../access-tokens/token-secret';
import type { Credential } from './authorize';
import { SessionsService } from './sessions.service';

/**
 * A passport instance of our own: the global one is a process-wide registry, and two
 * app instances in one process (tests, or api + router) must not replace each other's
 * strategy. The guard hands passport the strategy object itself, never a name.
 */
const authenticator = new passport.Passport();

/**
 * The one bearer strategy: `sk_live_...` is an API token, anything else is tried
 * as a dashboard JWT. Resolves to a Credential; workspace, scopes and route rules
 * are the guard's business.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(HttpBearerStrategy, 'bearer') {
  constructor(
    private readonly tokens: AccessTokensService,
    private readonly sessions: SessionsService,
  ) {
    super({ realm: 'statichost' });
  }

  getPassportInstance() {
    return authenticator;
  }

  /**
   * passport-http-bearer also takes `access_token` from the query string and the
   * body; a credential in a URL ends up in logs, proxies and browser history, so
   * it only ever sees the Authorization header.
   */
  override authenticate(req: Request, options?: object): void {
    super.authenticate({ headers: { authorization: req.headers?.authorization } } as Request, options);
  }

  async validate(credential: string): Promise<Credential | false> {
    if (looksLikeTokenSecret(credential)) return (await this.tokens.resolve(credential)) ?? false;
    return (await this.sessions.verifyAccessToken(credential)) ?? false;
  }
}
