import { createHash } from 'node:crypto';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

import { addressKey } from '../common/address-prefix';
import { attemptCounter } from '../common/attempt-counter';
import { tooManyAttempts } from '../common/errors';
import { AppConfig } from '../config/app-config';
import type { Email } from '../shared/email';

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
 * has it (so a 429 says nothing about existence): per account and client address, per
 * account from everywhere (slower), and per client address across all accounts (against
 * password spraying: one common password tried on many accounts never trips a per-account
 * count). Past any of them, even the right password gets 429: otherwise the answer to the
 * next guess would still tell right from wrong.
 * Mail-sending requests (reset, verification resend, email change, registration) count
 * every request, per account and per client address.
 */
@Injectable()
export class AuthThrottle implements OnModuleInit {
  private loginPerAccountAndAddress!: RateLimiterPostgres;
  private loginPerAccount!: RateLimiterPostgres;
  private loginPerAddress!: RateLimiterPostgres;
  private mailPerAccount!: RateLimiterPostgres;
  private mailPerAddress!: RateLimiterPostgres;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const c = this.config;
    this.loginPerAccountAndAddress = this.limiter('login-fail-addr', c.LOGIN_MAX_FAILURES_PER_ADDRESS, c.LOGIN_FAILURE_WINDOW_SECONDS);
    this.loginPerAccount = this.limiter('login-fail-acct', c.LOGIN_MAX_FAILURES_PER_ACCOUNT, c.LOGIN_ACCOUNT_WINDOW_SECONDS);
    this.loginPerAddress = this.limiter('login-fail-any', c.LOGIN_MAX_FAILURES_ACROSS_ACCOUNTS, c.LOGIN_ACROSS_ACCOUNTS_WINDOW_SECONDS);
    this.mailPerAccount = this.limiter('acct-mail-acct', c.ACCOUNT_MAIL_MAX_PER_WINDOW, c.ACCOUNT_MAIL_WINDOW_SECONDS);
    this.mailPerAddress = this.limiter('acct-mail-addr', c.ACCOUNT_MAIL_MAX_PER_ADDRESS, c.ACCOUNT_MAIL_WINDOW_SECONDS);
  }

  /**
   * Takes one attempt from every count before the password is checked, so guesses in
   * flight at once cannot slip past the limit together; 429 when any count is full, and
   * then the others get their attempt back (the password was not tried: a refused attempt
   * must not eat into the victims' per-account counts). A failed password keeps it;
   * `loginSucceeded` and `refundLoginAttempt` give it back.
   */
  async reserveLoginAttempt(email: Email, ip: string): Promise<void> {
    const counts = this.loginCounts(email, ip);
    const results = await Promise.allSettled(counts.map(([limiter, key]) => limiter.consume(key, 1)));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const broken = refused.find((reason) => !(reason instanceof RateLimiterRes));
    if (refused.length > 0) {
      await Promise.all(counts.flatMap(([limiter, key], i) => (results[i].status === 'fulfilled' ? [limiter.reward(key, 1)] : [])));
    }
    if (broken) throw broken;
    if (refused.length === 0) return;
    const byAddress = results[2].status === 'rejected';
    const retryAfter = Math.max(...(refused as RateLimiterRes[]).map((r) => r.msBeforeNext));
    throw tooManyAttempts(byAddress ? 'Too many failed sign-ins from this address' : 'Too many failed sign-ins for this account', retryAfter);
  }

  /** The attempt ended before the password could be judged (hashing busy, database down): it does not count. */
  async refundLoginAttempt(email: Email, ip: string): Promise<void> {
    await Promise.all(this.loginCounts(email, ip).map(([limiter, key]) => limiter.reward(key, 1)));
  }

  /**
   * A right password clears this account's count at this address and gives back its own
   * attempt to the other two. The count across accounts is not cleared: an attacker
   * spraying from an address could sign in to an account of his own to wipe it.
   */
  async loginSucceeded(email: Email, ip: string): Promise<void> {
    const [pair, account, address] = this.loginCounts(email, ip);
    await Promise.all([pair[0].delete(pair[1]), account[0].reward(account[1], 1), address[0].reward(address[1], 1)]);
  }

  /**
   * Counts one mail-sending request (reset, resend, email change, registration); throws 429
   * past the limit. `account` is an email or a user id; none for a registration, which
   * would otherwise use up a reset request of the account it creates.
   */
  async consumeMailRequest(account: string | undefined, ip: string): Promise<void> {
    try {
      await Promise.all([
        ...(account === undefined ? [] : [this.mailPerAccount.consume(accountKey(account), 1)]),
        this.mailPerAddress.consume(addressKey(ip), 1),
      ]);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw tooManyAttempts('Too many mail requests', err.msBeforeNext);
      throw err;
    }
  }

  /** The login counts and their keys, in the order `reserveLoginAttempt` reads them. */
  private loginCounts(email: Email, ip: string): [RateLimiterPostgres, string][] {
    const account = accountKey(email);
    // An IPv6 client is its /64 (addressKey): one host holds a whole /64 and could
    // otherwise spray from a fresh address per attempt.
    const client = addressKey(ip);
    return [
      [this.loginPerAccountAndAddress, `${account}:${client}`],
      [this.loginPerAccount, account],
      [this.loginPerAddress, client],
    ];
  }

  private limiter(keyPrefix: string, points: number, duration: number): RateLimiterPostgres {
    return attemptCounter(this.dataSource, keyPrefix, points, duration);
  }
}
