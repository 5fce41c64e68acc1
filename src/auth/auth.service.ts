import { randomBytes } from 'node:crypto';

import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../access/auth.errors';
import { AuditLogService } from '../audit/audit-log.service';
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
import { withBearerChallenge } from './guard/credentials';
import { AccountRecoveryService } from './recovery/account-recovery.service';
import { SessionsService } from './sessions/sessions.service';
import { SsoPasswordPolicy } from './sso-password-policy';
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
    if (user && !matches) await this.recordFailedSignIn(user, 'password');
    // One answer for a wrong email and a wrong password: no account enumeration.
    if (!user || !matches) throw withBearerChallenge(authError('invalid_login', 'Wrong email or password'));
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

  /** A session for the user, and `user.signed_in` in every workspace of theirs, in one transaction. */
  /** A one-factor sign-in: the SSO policy's say (and a break glass's audit entry) in the session's own transaction. */
  private signIn(user: User, method: string): Promise<LoginView> {
    return this.dataSource.transaction(async (m) => {
      await this.ssoPolicy?.passwordSignIn(user, 'complete', m);
      return this.startSession(m, user, method);
    });
  }

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
