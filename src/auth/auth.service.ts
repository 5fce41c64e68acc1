import { randomBytes } from 'node:crypto';

import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { authError } from '../access/auth.errors';
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
    // One answer for a wrong email and a wrong password: no account enumeration.
    if (!user || !matches) throw withBearerChallenge(authError('invalid_login', 'Wrong email or password'));
    await this.throttle.loginSucceeded(dto.email, ip);
    // After the password check, so an enforced domain's 403 tells a guesser nothing.
    await this.ssoPolicy?.passwordSignIn(user);
    const pair = await this.dataSource.transaction((m) => this.sessions.start(m, user.id));
    return { ...pair, user: userView(user) };
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
}
