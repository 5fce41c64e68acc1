import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { parseCookie, stringifySetCookie } from 'cookie';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

import { addressKey } from '../common/address-prefix';
import { attemptCounter } from '../common/attempt-counter';
import { verifyPassword } from '../common/password-hash';
import { loadOrCreateSecret } from '../common/secret-file';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import type { GatedSite } from './gate';
import { gateCookieExpiry, gateCookieName, readGateCookie, signGateCookie } from './gate-cookie';

/** Access cookies and brute-force limits of the password and email gates. */
@Injectable()
export class GateAccess implements OnModuleInit {
  private secret: Buffer;
  private failures: RateLimiterPostgres;
  readonly cookieName: string;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.cookieName = gateCookieName(config.PUBLIC_SCHEME === 'https');
  }

  async onModuleInit(): Promise<void> {
    const secret =
      this.config.GATE_COOKIE_SECRET ??
      (await loadOrCreateSecret(join(this.config.DATA_DIR, 'gate-cookie.secret'), () => randomBytes(32).toString('base64url')));
    this.secret = Buffer.from(secret, 'utf8');
    this.failures = this.limiter('gate-fail', this.config.GATE_MAX_ATTEMPTS);
  }

  /** A counter of `points` per key and window, shared through PostgreSQL. */
  limiter(keyPrefix: string, points: number): RateLimiterPostgres {
    return attemptCounter(this.dataSource, keyPrefix, points, this.config.GATE_ATTEMPT_WINDOW_SECONDS);
  }

  /** The expiry (unix seconds) of the access cookie in `cookieHeader` when it is genuine for this site. */
  accessUntil(site: GatedSite, cookieHeader: string): number | undefined {
    const value = parseCookie(cookieHeader)[this.cookieName];
    return gateCookieExpiry(this.secret, value, site.projectId, site.gateVersion);
  }

  /**
   * The email gate's lead named by a genuine, unexpired access cookie in `cookieHeader`
   * for this site as it is now; null for none (another gate, a v1 cookie, no cookie).
   */
  leadOf(site: GatedSite, cookieHeader: string | undefined): string | null {
    if (site.gateType !== 'email' || !cookieHeader) return null;
    const grant = readGateCookie(this.secret, parseCookie(cookieHeader)[this.cookieName], site.projectId, site.gateVersion);
    if (!grant || grant.expiresAt <= this.clock.now().getTime() / 1000) return null;
    return grant.leadId;
  }

  /** The Set-Cookie header granting access to this site (HttpOnly, SameSite=Lax, host-only), naming the email gate's lead when given. */
  accessCookie(site: GatedSite, leadId?: string): string {
    const ttl = this.config.GATE_COOKIE_TTL_SECONDS;
    const expiresAt = Math.floor(this.clock.now().getTime() / 1000) + ttl;
    const value = signGateCookie(this.secret, { projectId: site.projectId, gateVersion: site.gateVersion, expiresAt, leadId });
    return stringifySetCookie(this.cookieName, value, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: this.config.PUBLIC_SCHEME === 'https',
      maxAge: ttl,
    });
  }

  /** Seconds until this client may try the password again, or 0 when it may now (reads the count, takes nothing). */
  async passwordRetryAfter(site: GatedSite, ip: string): Promise<number> {
    const res = await this.failures.get(this.failureKey(site, ip));
    if (!res || res.consumedPoints < this.config.GATE_MAX_ATTEMPTS) return 0;
    return retryAfterSeconds(res);
  }

  /**
   * Takes one of this client's tries at the site's password before the password is checked:
   * 0 when taken, else the seconds until one is free. Taken first, so guesses sent all at
   * once cannot each pass a count that none of them has added to yet (read, hash, then
   * count let a burst of 60 through a limit of 5). `checkPassword` keeps it for a wrong
   * password and gives it back for the right one.
   */
  async reservePasswordTry(site: GatedSite, ip: string): Promise<number> {
    try {
      await this.failures.consume(this.failureKey(site, ip), 1);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return retryAfterSeconds(err);
      throw err;
    }
  }

  /** After `reservePasswordTry`: only failures stay counted, so a visitor who knows the password is never slowed down. */
  async checkPassword(site: GatedSite, ip: string, password: string): Promise<boolean> {
    const key = this.failureKey(site, ip);
    let ok: boolean;
    try {
      ok = site.passwordHash ? await verifyPassword(password, site.passwordHash) : false;
    } catch (err) {
      // Not judged (the hashing queue is full): the try was not used.
      await this.failures.reward(key, 1);
      throw err;
    }
    if (ok) await this.failures.reward(key, 1);
    return ok;
  }

  /** Per site and client: an IPv6 client is its /64 (addressKey), which one host commonly holds whole. */
  private failureKey(site: GatedSite, ip: string): string {
    return `${site.projectId}:${addressKey(ip)}`;
  }
}

function retryAfterSeconds(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}
