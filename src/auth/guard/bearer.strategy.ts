import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passport from 'passport';
import { Strategy as HttpBearerStrategy } from 'passport-http-bearer';

import type { Credential } from '../../access/authorize';
import { isWellFormedTokenSecret, looksLikeTokenSecret } from '../../access-tokens/token-secret';
import { AuthEpoch } from '../sessions/auth-epoch.service';
import { CredentialCache } from './credential-cache.service';

/** A resolved credential and the auth epoch it was checked in (the guard checks the membership in the same one). */
export interface Authenticated {
  credential: Credential;
  epoch: string;
}

/**
 * Where @nestjs/passport registers the strategy: a passport instance of our own, because
 * the global one is a process-wide registry that two app instances in one process (tests,
 * or api + router) would share. Nothing looks the strategy up by name: the guard drives
 * the strategy object itself.
 */
const registry = new passport.Passport();

/**
 * The one bearer strategy: `sk_live_...` is an API token, anything else is tried
 * as a dashboard JWT. Resolves to a Credential (through CredentialCache, in the
 * current auth epoch); workspace, scopes and route rules are the guard's business.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(HttpBearerStrategy, 'bearer') {
  constructor(
    private readonly epoch: AuthEpoch,
    private readonly cache: CredentialCache,
  ) {
    super({ realm: 'statichost' });
  }

  getPassportInstance() {
    return registry;
  }

  /**
   * passport-http-bearer also takes `access_token` from the query string and the
   * body; a credential in a URL ends up in logs, proxies and browser history, so
   * it only ever sees the Authorization header.
   */
  override authenticate(req: Request, options?: object): void {
    super.authenticate({ headers: { authorization: req.headers?.authorization } } as Request, options);
  }

  async validate(secret: string): Promise<Authenticated | false> {
    const isToken = looksLikeTokenSecret(secret);
    if (isToken && !isWellFormedTokenSecret(secret)) return false;
    // Read after the request arrived: anything revoked before it was sent is a new epoch.
    const epoch = await this.epoch.fresh();
    const credential = isToken ? await this.cache.token(secret, epoch) : await this.cache.user(secret, epoch);
    return credential ? { credential, epoch } : false;
  }
}
