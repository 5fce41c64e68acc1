import { randomUUID } from 'node:crypto';

import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../../access/auth.errors';
import { AuditLogService, changedFields } from '../../audit/audit-log.service';
import { uniqueViolation } from '../../common/db-errors';
import { unauthorized } from '../../common/errors';
import { hashPassword, verifyPassword } from '../../common/password-hash';
import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { MailService } from '../../mail/mail.service';
import { OutboxService } from '../../outbox/outbox.service';
import type { Email } from '../../shared/email';
import type { User } from '../../users/user.entity';
import { UserView, userView } from '../../users/user.view';
import { usersError } from '../../users/users.errors';
import { UsersRepository } from '../../users/users.repository';
import { WorkspacesRepository } from '../../workspaces/workspaces.repository';
import { AuthThrottle } from '../auth-throttle.service';
import { sessionsError } from '../sessions/sessions.errors';
import { SessionsRepository } from '../sessions/sessions.repository';
import { SessionsService } from '../sessions/sessions.service';
import { SsoPasswordPolicy } from '../sso-password-policy';
import type { AccountToken, AccountTokenPurpose } from './account-token.entity';
import { hashAccountToken, newAccountToken, TOKEN_TTL_MS, tokenShape } from './account-tokens';
import { AccountTokensRepository } from './account-tokens.repository';
import { UnverifiedAccountTakeback } from './unverified-account.service';

/** The outbox kind that turns a reset request into a token and a mail, after the request was answered. */
export const PASSWORD_RESET_REQUEST_KIND = 'password_reset_request';

const invalidToken = (what: string) => authError('invalid_token', `token is not a valid ${what} token: ask for a new link`);

/**
 * Email verification and password reset: single-use tokens mailed through the outbox,
 * stored as SHA-256 only.
 */
/** An account as the audit log names it. */
function userTarget(user: Pick<User, 'id' | 'email'>) {
  return { type: 'user', id: user.id, label: user.email };
}

@Injectable()
export class AccountRecoveryService implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
    private readonly accountTokens: AccountTokensRepository,
    private readonly sessions: SessionsRepository,
    private readonly config: AppConfig,
    private readonly mail: MailService,
    private readonly outbox: OutboxService,
    private readonly throttle: AuthThrottle,
    private readonly clock: Clock,
    private readonly sessionService: SessionsService,
    private readonly audit: AuditLogService,
    private readonly takeback: UnverifiedAccountTakeback,
    private readonly workspaces: WorkspacesRepository,
    @Optional() private readonly ssoPolicy?: SsoPasswordPolicy,
  ) {}

  onModuleInit(): void {
    // The payload's email was an Email when requestReset wrote it.
    this.outbox.register(PASSWORD_RESET_REQUEST_KIND, (payload) => this.issueReset(String(payload.email) as Email));
  }

  /** Mails a link confirming `email` for the user (their address, or the one they want instead), in the caller's transaction. */
  async sendVerification(m: EntityManager, user: User, email: Email): Promise<void> {
    const now = this.clock.now();
    const token = await this.issue(m, user.id, 'verify_email', email, now);
    const link = `${this.config.apiBaseUrl}/app/verify-email?token=${token}`;
    await this.mail.queue(m, email, { template: 'verify_email', data: { name: user.name, email, link, change: email !== user.email } }, now);
  }

  async resendVerification(userId: string, ip: string): Promise<void> {
    await this.throttle.consumeMailRequest(`user:${userId}`, ip);
    await this.dataSource.transaction(async (m) => {
      const user = await this.users.lockById(m, userId);
      if (!user) throw unauthorized();
      if (user.emailVerifiedAt) throw authError('email_already_verified', `${user.email} is already verified`);
      await this.sendVerification(m, user, user.email);
    });
  }

  /** A new name applies at once; a new email is mailed a confirmation link and applies when it is followed. */
  async updateMe(userId: string, sessionId: string | undefined, input: { email?: Email; name?: string }, ip: string): Promise<UserView> {
    const email = input.email;
    return this.dataSource.transaction(async (m) => {
      const user = await this.users.lockById(m, userId);
      if (!user) throw unauthorized();
      // Judged against the locked row: a new email, once confirmed, is a password reset away
      // from the account, so a stolen session alone must not ask for one.
      if (email !== undefined && email !== user.email) await this.sessionService.requireRecentSignIn(userId, sessionId, 'Changing your email', m);
      if (input.name !== undefined && input.name !== user.name) {
        user.name = input.name;
        await this.users.update(m, user.id, { name: input.name });
      }
      if (email !== undefined && email !== user.email) {
        // Counted before the check, so asking which emails are taken costs a request each time.
        await this.throttle.consumeMailRequest(`user:${userId}`, ip);
        if (await this.users.emailTaken(m, email)) throw usersError('email_taken', `An account with the email ${email} already exists`);
        await this.sendVerification(m, user, email);
      }
      // An email asked for is in `changes` although it applies only once confirmed (user.email_verified).
      await this.audit.recordForUser(m, user.id, { action: 'user.updated', target: userTarget(user), changes: changedFields(input) });
      return userView(user);
    });
  }

  /**
   * Marks the token's address verified. When it is not the account's address (a change
   * the user asked for), the account moves to it and the old address is told.
   */
  async verifyEmail(token: string): Promise<UserView> {
    return this.dataSource.transaction(async (m) => {
      const now = this.clock.now();
      const row = await this.consume(m, token, 'verify_email', now);
      const user = await this.lockUser(m, row.userId);
      const oldEmail = user.email;
      if (row.email !== oldEmail) {
        if (await this.users.emailTaken(m, row.email)) throw usersError('email_taken', `An account with the email ${row.email} already exists`);
        try {
          await this.users.update(m, user.id, { email: row.email });
        } catch (err) {
          if (uniqueViolation(err) === 'UQ_users_email') throw usersError('email_taken', `An account with the email ${row.email} already exists`);
          throw err;
        }
        for (const dropped of await this.workspaces.followEmailChange(m, user.id, row.email)) {
          // An invitation of the new address where the person already is a member: it goes, and the workspace's log says so.
          await this.audit.record(m, {
            workspaceId: dropped.workspace_id,
            action: 'member.removed',
            actor: { type: 'user', id: user.id, label: row.email },
            target: { type: 'member', id: dropped.id, label: dropped.email },
          });
        }
        user.email = row.email;
        await this.mail.queue(m, oldEmail, { template: 'email_changed', data: { name: user.name, oldEmail, newEmail: row.email } }, now);
        // Moved onto a domain whose SSO is enforced: its password no longer signs in, so the
        // sessions it opened end too, as they do for the domain's accounts when enforcement begins.
        if (await this.ssoPolicy?.enforcedFor(user, m)) await this.sessionService.endOthers(m, user.id, null);
      }
      if (!user.emailVerifiedAt || row.email !== oldEmail) {
        user.emailVerifiedAt = now;
        await this.users.update(m, user.id, { emailVerifiedAt: now });
      }
      // Other links for this address have nothing left to do; after a change, neither have
      // links for earlier addresses (one of them must not move the account back).
      await this.accountTokens.markUnusedUsed(m, user.id, 'verify_email', now, row.email !== oldEmail ? undefined : row.email);
      // A public route: the link's owner is the actor. A changed address is the account's sign-in changing.
      await this.audit.recordForUser(m, user.id, {
        action: 'user.email_verified',
        actor: { type: 'user', id: user.id },
        target: userTarget(user),
        changes: row.email !== oldEmail ? ['email'] : [],
      });
      return userView(user);
    });
  }

  /**
   * The same work whether or not the email has an account: count it, queue it, answer.
   * Looking the account up, making the token and mailing it happen in the outbox job,
   * so neither the answer nor its timing says whether the account exists.
   */
  async requestReset(email: Email, ip: string): Promise<void> {
    await this.throttle.consumeMailRequest(`email:${email}`, ip);
    await this.dataSource.transaction((m) => this.outbox.enqueue(m, PASSWORD_RESET_REQUEST_KIND, { email }, this.clock.now()));
  }

  /** Sets the password and ends every session of the user (which bumps the auth epoch, by trigger). */
  async confirmReset(token: string, password: string): Promise<void> {
    // Checked before the slow hash, so a bad token costs a lookup only; checked again, authoritatively, below.
    await this.consume(this.dataSource.manager, token, 'password_reset', this.clock.now(), true);
    const passwordHash = await hashPassword(password);
    await this.dataSource.transaction(async (m) => {
      const now = this.clock.now();
      const row = await this.consume(m, token, 'password_reset', now);
      const user = await this.lockUser(m, row.userId);
      // Mailed to an address the account no longer has: not this account's link any more.
      if (user.email !== row.email) throw invalidToken('password reset');
      // The link reached that inbox, which proves the address as well as a verification link
      // would, and makes whoever reads it the account's holder, not whoever registered it.
      if (!user.emailVerifiedAt) await this.takeback.takeBack(m, user, now, 'password reset');
      await this.users.update(m, user.id, { passwordHash, ...(user.emailVerifiedAt ? {} : { emailVerifiedAt: now }) });
      await this.sessions.revokeAllOfUser(m, user.id, now);
      await this.accountTokens.markUnusedUsed(m, user.id, 'password_reset', now);
      await this.audit.recordForUser(m, user.id, {
        action: 'user.password_reset',
        actor: { type: 'user', id: user.id },
        target: userTarget(user),
        changes: ['password'],
      });
    });
  }

  private async issueReset(email: Email): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const user = await this.users.findByEmail(m, email);
      if (!user) return;
      const now = this.clock.now();
      const token = await this.issue(m, user.id, 'password_reset', user.email, now);
      const link = `${this.config.apiBaseUrl}/app/reset-password?token=${token}`;
      await this.mail.queue(m, user.email, { template: 'password_reset', data: { name: user.name, link } }, now);
    });
  }

  private async issue(m: EntityManager, userId: string, purpose: AccountTokenPurpose, email: Email, now: Date): Promise<string> {
    const token = newAccountToken(purpose);
    await this.accountTokens.insert(m, {
      id: randomUUID(),
      userId,
      purpose,
      email,
      tokenHash: hashAccountToken(token),
      expiresAt: new Date(now.getTime() + TOKEN_TTL_MS[purpose]),
      usedAt: null,
    });
    return token;
  }

  /** The token's row, marked used (unless `peek`), or a 400 that says which of malformed, unknown, used or expired. */
  private async consume(m: EntityManager, token: string, purpose: AccountTokenPurpose, now: Date, peek = false): Promise<AccountToken> {
    const what = purpose === 'verify_email' ? 'email verification' : 'password reset';
    const shape = tokenShape(token, purpose);
    if (shape === 'malformed') throw authError('invalid_token', `token is malformed: copy the whole ${what} link`);
    if (shape === 'foreign') throw invalidToken(what);
    const row = await this.accountTokens.findByHash(m, hashAccountToken(token), purpose, !peek);
    if (!row) throw invalidToken(what);
    if (row.usedAt) throw authError('token_used', `token was already used: ask for a new ${what} link`);
    if (row.expiresAt <= now) throw authError('token_expired', `token expired: ask for a new ${what} link`);
    if (!peek) await this.accountTokens.markUsed(m, row.id, now);
    return row;
  }

  /** The token's account, locked: it exists, since its tokens go with it (ON DELETE CASCADE). */
  private async lockUser(m: EntityManager, userId: string): Promise<User> {
    const user = await this.users.lockById(m, userId);
    if (!user) throw new Error(`user ${userId} of a live account token is gone`);
    return user;
  }

  /**
   * PUT /auth/password (issue 32): the current password proves it is the account's owner at
   * the keyboard, not a stolen session; wrong guesses count as failed sign-ins (AuthThrottle).
   * Every other session ends with the change, and pending reset links die with the old password.
   */
  async changePassword(userId: string, sessionId: string | undefined, dto: { currentPassword: string; newPassword: string }, ip: string): Promise<void> {
    const user = await this.users.findById(this.dataSource.manager, userId);
    if (!user) throw unauthorized();
    await this.throttle.reserveLoginAttempt(user.email, ip);
    let matches: boolean;
    try {
      matches = await verifyPassword(dto.currentPassword, user.passwordHash);
    } catch (err) {
      await this.throttle.refundLoginAttempt(user.email, ip).catch(() => undefined);
      throw err;
    }
    if (!matches) throw sessionsError('wrong_password', 'currentPassword is not your password');
    await this.throttle.loginSucceeded(user.email, ip);
    const passwordHash = await hashPassword(dto.newPassword);
    await this.dataSource.transaction(async (m) => {
      const now = this.clock.now();
      await this.lockUser(m, userId);
      await this.users.update(m, userId, { passwordHash });
      await this.accountTokens.markUnusedUsed(m, userId, 'password_reset', now);
      await this.audit.recordForUser(m, userId, { action: 'user.password_changed', target: { type: 'user', id: userId, label: user.email } });
      await this.sessionService.endOthers(m, userId, sessionId ?? null);
    });
  }
}
