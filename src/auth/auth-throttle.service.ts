import { createHash } from 'node:crypto';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

import { tooManyAttempts } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { attemptCounter } from '../gates/attempt-counter';
import type { Email } from '../users/email';

/**
 * Keys are hashed: the table's key column is 255 characters (an email alone may be 254),
 * and the counters need not hold anyone's address in clear.
 */
const accountKey = (account: string) => createHash('sha256').update(account, 'utf8').digest('base64url');

/**
 * Brute-force limits of the account endpoints, counted in PostgreSQL (the gates'
 * rate-limiter table, own key prefixes) so every instance counts together.
 *
 * Login counts failed passwords, keyed by the normalised email whether or not an account
 * has it (so a 429 says nothing about existence): per account and client address, and
 * per account from everywhere (slower). Past either, even the right password gets 429:
 * otherwise the answer to the next guess would still tell right from wrong.
 * Reset requests and verification resends count every request, per account and per address.
 */
@Injectable()
export class AuthThrottle implements OnModuleInit {
  private loginPerAddress!: RateLimiterPostgres;
  private loginPerAccount!: RateLimiterPostgres;
  private mailPerAccount!: RateLimiterPostgres;
  private mailPerAddress!: RateLimiterPostgres;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const c = this.config;
    this.loginPerAddress = this.limiter('login-fail-addr', c.LOGIN_MAX_FAILURES_PER_ADDRESS, c.LOGIN_FAILURE_WINDOW_SECONDS);
    this.loginPerAccount = this.limiter('login-fail-acct', c.LOGIN_MAX_FAILURES_PER_ACCOUNT, c.LOGIN_ACCOUNT_WINDOW_SECONDS);
    this.mailPerAccount = this.limiter('acct-mail-acct', c.ACCOUNT_MAIL_MAX_PER_WINDOW, c.ACCOUNT_MAIL_WINDOW_SECONDS);
    this.mailPerAddress = this.limiter('acct-mail-addr', c.ACCOUNT_MAIL_MAX_PER_WINDOW, c.ACCOUNT_MAIL_WINDOW_SECONDS);
  }

  /**
   * Takes one attempt from both counts before the password is checked, so guesses in
   * flight at once cannot slip past the limit together; 429 when either count is full.
   * A failed password keeps it; `loginSucceeded` and `refundLoginAttempt` give it back.
   */
  async reserveLoginAttempt(email: Email, ip: string): Promise<void> {
    const account = accountKey(email);
    const results = await Promise.allSettled([this.loginPerAddress.consume(`${account}:${ip}`, 1), this.loginPerAccount.consume(account, 1)]);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const broken = refused.find((reason) => !(reason instanceof RateLimiterRes));
    if (broken) throw broken;
    if (refused.length > 0)
      throw tooManyAttempts('Too many failed sign-ins for this account', Math.max(...(refused as RateLimiterRes[]).map((r) => r.msBeforeNext)));
  }

  /** The attempt ended before the password could be judged (hashing busy, database down): it does not count. */
  async refundLoginAttempt(email: Email, ip: string): Promise<void> {
    const account = accountKey(email);
    await Promise.all([this.loginPerAddress.reward(`${account}:${ip}`, 1), this.loginPerAccount.reward(account, 1)]);
  }

  /** A right password clears this address's count and gives back its attempt to the account-wide one (which an attacker elsewhere may be feeding). */
  async loginSucceeded(email: Email, ip: string): Promise<void> {
    const account = accountKey(email);
    await Promise.all([this.loginPerAddress.delete(`${account}:${ip}`), this.loginPerAccount.reward(account, 1)]);
  }

  /** Counts one mail-sending request (reset, resend); throws 429 past the limit. `account` is an email or a user id. */
  async consumeMailRequest(account: string, ip: string): Promise<void> {
    try {
      await Promise.all([this.mailPerAccount.consume(accountKey(account), 1), this.mailPerAddress.consume(ip, 1)]);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw tooManyAttempts('Too many mail requests', err.msBeforeNext);
      throw err;
    }
  }

  private limiter(keyPrefix: string, points: number, duration: number): RateLimiterPostgres {
    return attemptCounter(this.dataSource, keyPrefix, points, duration);
  }
}
