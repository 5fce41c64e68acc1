import { randomBytes } from 'node:crypto';

import { Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../access/auth.errors';
import { detachAuditRequest, inAuditRequest } from '../audit/audit-context';
import { AuditLogService } from '../audit/audit-log.service';
import { DeferredWork } from '../common/deferred-work';
import { unauthorized } from '../common/errors';
import { hashPassword, verifyPassword } from '../common/password-hash';
import type { Principal } from '../shared/principal';
import type { User } from '../users/user.entity';
import { userView } from '../users/user.view';
import { UsersService } from '../users/users.service';
import { workspaceView } from '../workspaces/workspace.view';
import { WorkspacesService } from '../workspaces/workspaces.service';
import type { LoginView, RegisterView, TokenPairView } from './auth.view';
import { AuthThrottle } from './auth-throttle.service';
import type { LoginDto, RegisterDto } from './dto/auth.dto';
import type { ReauthenticateDto } from './dto/reauthenticate.dto';
import { withBearerChallenge } from './guard/credentials';
import { AccountRecoveryService } from './recovery/account-recovery.service';
import { sessionsError } from './sessions/sessions.errors';
import { SessionsService } from './sessions/sessions.service';
import { SsoPasswordPolicy } from './sso-password-policy';
import { PASSKEY_VERIFIER, type PasskeyVerifier } from './two-factor/passkey-verifier';
import type { SecondFactorDto } from './two-factor/two-factor.dto';
import { twoFactorError } from './two-factor/two-factor.errors';
import { type SecondFactorAnswer, TwoFactorService } from './two-factor/two-factor.service';

@Injectable()
export class AuthService implements OnModuleInit {
  /** Checked when the email is unknown, so a wrong email costs the same scrypt as a wrong password. */
  private dummyHash!: Promise<string>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly workspaces: WorkspacesService,
    private readonly sessions: SessionsService,
    private readonly recovery: AccountRecoveryService,
    private readonly throttle: AuthThrottle,
    private readonly audit: AuditLogService,
    private readonly twoFactor: TwoFactorService,
    private readonly deferred: DeferredWork,
    // Provided by src/auth/passkeys; optional as TwoFactorService's is.
    @Optional() @Inject(PASSKEY_VERIFIER) private readonly passkeys?: PasskeyVerifier,
    // Bound by src/sso (issue 32); absent in an app built without it.
    @Optional() private readonly ssoPolicy?: SsoPasswordPolicy,
  ) {}

  onModuleInit(): void {
    this.dummyHash = hashPassword(randomBytes(16).toString('hex'));
  }

  /**
   * The account, its personal workspace (owned) and a first session, all or nothing.
   * Counted as a mail request of the address `ip` (it mails a verification link) before anything else,
   * taken addresses included: that bounds how fast one address can ask which emails have
   * an account (409 email_taken, docs/security.md).
   */
  async register(dto: RegisterDto, ip: string): Promise<RegisterView> {
    await this.throttle.consumeMailRequest(undefined, ip);
    // Before the hash and the insert: a domain's enforcement is public (its sign-in page says so), so this tells nothing of accounts.
    await this.ssoPolicy?.passwordRegistration(dto.email);
    const passwordHash = await hashPassword(dto.password);
    return this.dataSource.transaction(async (m) => {
      const user = await this.users.create(m, { email: dto.email, name: dto.name, passwordHash });
      const workspace = await this.workspaces.createWithOwner(m, user, `${user.name}'s workspace`);
      const pair = await this.sessions.start(m, user.id);
      await this.recovery.sendVerification(m, user, user.email);
      return { ...pair, user: userView(user), workspace: workspaceView(workspace, 'owner') };
    });
  }

  /** `ip` is the client's address, for the failed-attempt limits (AuthThrottle). */
  async login(dto: LoginDto, ip: string): Promise<LoginView> {
    // Before the password is checked: past the limit the answer must not tell right from wrong.
    await this.throttle.reserveLoginAttempt(dto.email, ip);
    let user: User | null;
    let matches: boolean;
    try {
      user = await this.users.findByEmail(dto.email);
      matches = await verifyPassword(dto.password, user?.passwordHash ?? (await this.dummyHash));
    } catch (err) {
      await this.throttle.refundLoginAttempt(dto.email, ip).catch(() => undefined);
      throw err;
    }
    // Written after the answer: only an existing account has an entry, and waiting for it would
    // make a wrong password slower than a wrong email (DeferredWork).
    if (!user || !matches) {
      // A copy of the request, taken for a wrong email too (reading the client's family costs
      // alike): the entry still names the attempt's network and client after the answer.
      const request = detachAuditRequest();
      if (user) this.deferred.run('audit of a failed sign-in', () => inAuditRequest(request, () => this.recordFailedSignIn(user, 'password')));
      // One answer for a wrong email and a wrong password: no account enumeration.
      throw withBearerChallenge(authError('invalid_login', 'Wrong email or password'));
    }
    const methods = await this.twoFactor.methodsFor(user.id);
    // The password was tried, not the sign-in finished, when a second factor follows: its attempt is
    // given back, but the counts are not cleared, so wrong second factors (counted the same way) add up
    // to the same limits.
    if (methods.length > 0) await this.throttle.refundLoginAttempt(dto.email, ip);
    else await this.throttle.loginSucceeded(dto.email, ip);
    // The SSO policy is asked after the password check, so an enforced domain's 403 tells a
    // guesser nothing: in the session's transaction for a one-factor sign-in; before the second
    // factor's challenge otherwise, so a refused account is not asked for it, and again when the
    // challenge is answered (enforcement may have begun since), which audits a break glass.
    if (methods.length === 0) return this.signIn(user, 'password');
    await this.ssoPolicy?.passwordSignIn(user, 'before_second_factor');
    const challenge = await this.twoFactor.issueChallenge(user.id);
    throw withBearerChallenge(
      twoFactorError(
        'second_factor_required',
        `This account signs in with a second factor: answer the challenge at POST /auth/login/second-factor with one of: ${methods.join(', ')}`,
        {
          challenge,
          methods,
        },
      ),
    );
  }

  async refresh(refreshToken: string): Promise<TokenPairView> {
    const outcome = await this.sessions.refresh(refreshToken);
    if (!outcome.ok) throw withBearerChallenge(authError('invalid_refresh_token', 'Invalid, expired or already used refresh token: sign in again'));
    return outcome.pair;
  }

  /** Ends the session the JWT belongs to: its refresh token and every access JWT issued with it. */
  async logout(principal: Principal): Promise<void> {
    await this.sessions.revoke(principal.sessionId!);
  }

  /**
   * The second step of a sign-in (issue 32): the challenge POST /auth/login handed out,
   * answered with a TOTP code, a recovery code or a passkey. Wrong answers count with the
   * sign-in limits of the challenge's account and `ip`, like wrong passwords; the
   * challenge is used up by the answer that completes the sign-in.
   */
  async loginSecondFactor(dto: SecondFactorDto, ip: string): Promise<LoginView> {
    const refused = () =>
      withBearerChallenge(twoFactorError('invalid_login_challenge', 'This sign-in challenge is unknown, expired (5 minutes) or already used: sign in again'));
    const userId = await this.twoFactor.challengeUser(dto.challenge);
    const user = userId ? await this.users.findById(userId) : null;
    if (!user) throw refused();
    await this.throttle.reserveLoginAttempt(user.email, ip);
    const answer: SecondFactorAnswer =
      dto.totp !== undefined ? { totp: dto.totp } : dto.recoveryCode !== undefined ? { recoveryCode: dto.recoveryCode } : { passkey: dto.passkey };
    const method = 'totp' in answer ? 'totp' : 'recoveryCode' in answer ? 'recoveryCode' : 'passkey';
    let outcome: Awaited<ReturnType<TwoFactorService['answerChallenge']>> | { ok: true; view: LoginView };
    try {
      outcome = await this.dataSource.transaction(async (m) => {
        const answered = await this.twoFactor.answerChallenge(m, dto.challenge, answer);
        if (!answered.ok) return answered;
        // A refusal rolls the answer back: the challenge and a recovery code stay unused.
        await this.ssoPolicy?.passwordSignIn(user, 'complete', m);
        return { ok: true as const, view: await this.startSession(m, user, method) };
      });
    } catch (err) {
      await this.throttle.refundLoginAttempt(user.email, ip).catch(() => undefined);
      throw err;
    }
    if (outcome.ok && 'view' in outcome) {
      await this.throttle.loginSucceeded(user.email, ip);
      return outcome.view;
    }
    if (!outcome.ok && outcome.reason === 'challenge') {
      await this.throttle.refundLoginAttempt(user.email, ip);
      throw refused();
    }
    await this.recordFailedSignIn(user, method);
    throw withBearerChallenge(twoFactorError('invalid_second_factor', `${method}: wrong or already used; try again (the challenge stays valid for 5 minutes)`));
  }

  /**
   * POST /auth/reauthenticate: the signed-in person proves again who they are, as a sign-in
   * of the account would ask (the password and, when TOTP is on, a code; or a passkey with
   * the person verified by it), and the session may change the account's credentials for
   * RECENT_SIGN_IN_MS. One attempt with the sign-in limits of the account and `ip`, like a
   * sign-in: a stolen session cannot guess the password through it any faster.
   */
  async reauthenticate(principal: Principal, dto: ReauthenticateDto, ip: string): Promise<void> {
    const user = await this.users.findById(principal.userId!);
    if (!user) throw unauthorized();
    await this.throttle.reserveLoginAttempt(user.email, ip);
    // A password leads (what follows it is its second factor); a passkey sent alone proves it all.
    const factor = dto.password !== undefined ? 'password' : 'passkey';
    let refusal: { factor: string; message: string } | null;
    try {
      // An enforced domain proves who it is at its provider: sign in through it again (a new session is recent).
      await this.ssoPolicy?.passwordSignIn(user, 'before_second_factor');
      refusal = await this.checkIdentity(user, dto);
      if (refusal === null) {
        refusal = await this.dataSource.transaction(async (m) => {
          const methods = await this.twoFactor.methodsFor(user.id);
          const used = [factor];
          // With a password, what a sign-in with it would ask next: a TOTP or recovery code, or a passkey.
          if (factor === 'password' && methods.length > 0) {
            // A passkey sent with the password was checked with it (checkIdentity): one of theirs.
            if (dto.passkey !== undefined) {
              used.push('passkey');
            } else if (dto.code !== undefined && methods.includes('totp')) {
              if (!(await this.twoFactor.checkCurrentCode(m, user.id, dto.code)))
                return { factor: 'code', message: 'code: not a current TOTP code nor an unused recovery code' };
              used.push('code');
            } else {
              const asks = [
                ...(methods.includes('totp') ? ['code (a current TOTP code or a recovery code)'] : []),
                ...(methods.includes('passkey') ? ['passkey'] : []),
              ];
              return {
                factor: methods.includes('totp') ? 'code' : 'passkey',
                message: `${methods.includes('totp') ? 'code' : 'passkey'}: this account signs in with a second factor too: send ${asks.join(' or ')} with the password`,
              };
            }
          }
          await this.sessions.reauthenticated(m, user.id, principal.sessionId!);
          await this.audit.recordForUser(m, user.id, {
            action: 'user.reauthenticated',
            target: { type: 'user', id: user.id, label: user.email },
            changes: used,
          });
          return null;
        });
      }
    } catch (err) {
      await this.throttle.refundLoginAttempt(user.email, ip).catch(() => undefined);
      throw err;
    }
    if (refusal !== null) {
      await this.recordFailedSignIn(user, refusal.factor);
      throw sessionsError('reauthentication_failed', refusal.message);
    }
    await this.throttle.loginSucceeded(user.email, ip);
  }

  /**
   * Null when the password of `dto` (and the passkey sent with it, as a second factor) or the
   * passkey sent alone (the person verified by it) is the user's, or what was wrong. Outside
   * any transaction: a passkey's check takes its challenge in one of its own. The code is
   * checked with the session's update.
   */
  private async checkIdentity(user: User, dto: ReauthenticateDto): Promise<{ factor: string; message: string } | null> {
    const passkeyRefused = { factor: 'passkey', message: 'passkey: not one of your passkeys, or its challenge expired or was answered already' };
    if (dto.password === undefined) {
      if (this.passkeys && (await this.passkeys.verifyIdentity(user.id, dto.passkey))) return null;
      return {
        ...passkeyRefused,
        message: 'passkey: not one of your passkeys with you verified by it (PIN, biometrics), or its challenge expired or was answered already',
      };
    }
    if (!(await verifyPassword(dto.password, user.passwordHash))) return { factor: 'password', message: 'password: not your password' };
    if (dto.passkey !== undefined && !(this.passkeys && (await this.passkeys.verifySecondFactor(user.id, dto.passkey)))) return passkeyRefused;
    return null;
  }

  /** A one-factor sign-in: the SSO policy's say (and a break glass's audit entry) in the session's own transaction. */
  private signIn(user: User, method: string): Promise<LoginView> {
    return this.dataSource.transaction(async (m) => {
      await this.ssoPolicy?.passwordSignIn(user, 'complete', m);
      return this.startSession(m, user, method);
    });
  }

  /** A session for the user, and `user.signed_in` in every workspace of theirs, in one transaction. */
  private async startSession(m: EntityManager, user: User, method: string): Promise<LoginView> {
    const pair = await this.sessions.start(m, user.id);
    // Public route: no caller resolved yet, so the actor is named here. `changes` holds the factors used.
    await this.audit.recordForUser(m, user.id, {
      action: 'user.signed_in',
      actor: { type: 'user', id: user.id, label: user.email },
      target: { type: 'user', id: user.id, label: user.email },
      changes: method === 'password' ? ['password'] : ['password', method],
    });
    return { ...pair, user: userView(user) };
  }

  /** `user.signin_failed` for an existing account, in its own small transaction (the refusal that follows changes nothing else). */
  private async recordFailedSignIn(user: User, factor: string): Promise<void> {
    await this.dataSource.transaction((m) =>
      this.audit.recordForUser(m, user.id, {
        action: 'user.signin_failed',
        actor: { type: 'user', id: user.id, label: user.email },
        target: { type: 'user', id: user.id, label: user.email },
        changes: [factor],
      }),
    );
  }
}
