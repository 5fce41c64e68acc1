import { createHash, randomBytes } from 'node:crypto';

import { Inject, Injectable, Optional } from '@nestjs/common';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../../access/auth.errors';
import { AuditLogService } from '../../audit/audit-log.service';
import { verifyPassword } from '../../common/password-hash';
import { Clock, iso } from '../../common/time';
import type { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { AuthThrottle } from '../auth-throttle.service';
import { withBearerChallenge } from '../guard/credentials';
import { PASSKEY_VERIFIER, type PasskeyVerifier } from './passkey-verifier';
import { looksLikeTotpCode, newRecoveryCodes, recoveryCodeHash } from './recovery-codes';
import { SECRET_SEALER, type SecretSealer } from './secret-sealer';
import { totpAad } from './totp-seals';
import type { TotpCredential } from './two-factor.entities';
import { twoFactorError } from './two-factor.errors';
import { TwoFactorRepository } from './two-factor.repository';
import type { RecoveryCodesView, TotpEnrolmentView, TwoFactorMethod, TwoFactorStatusView } from './two-factor.view';

/** TOTP's time step (RFC 6238's default, the one every authenticator app uses). */
const PERIOD_SECONDS = 30;
/** ±1 step: a code from the step before or after the server's is accepted (clock drift, typing time), never ±2. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;
const CHALLENGE_TTL_MS = 5 * 60_000;
const ISSUER = 'statichost';

/** What a login challenge is answered with: exactly one of them (the DTO checks it). */
export type SecondFactorAnswer = { totp: string } | { recoveryCode: string } | { passkey: unknown };

/**
 * Two-factor sign-in (issue 32): TOTP enrolment, recovery codes, and the checks of a
 * second factor that sign-in and the guard ask for. Passkeys are another area's
 * (PASSKEY_VERIFIER, optional so this runs without them).
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: TwoFactorRepository,
    private readonly audit: AuditLogService,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly throttle: AuthThrottle,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
    @Optional() @Inject(PASSKEY_VERIFIER) private readonly passkeys?: PasskeyVerifier,
  ) {}

  async status(userId: string): Promise<TwoFactorStatusView> {
    const [totp, recoveryCodesLeft, passkeys] = await Promise.all([
      this.rows.findTotp(this.dataSource.manager, userId),
      this.rows.countRecoveryCodes(userId),
      this.passkeyCount(userId),
    ]);
    const enabledAt = totp?.enabledAt ?? null;
    return {
      totp: { enabled: enabledAt !== null, enabledAt: iso(enabledAt) },
      recoveryCodesLeft,
      passkeys,
      methods: this.methods(enabledAt !== null, passkeys),
    };
  }

  /** The methods a login challenge of this user may be answered with; none means the password alone signs in. */
  async methodsFor(userId: string): Promise<TwoFactorMethod[]> {
    const [totp, passkeys] = await Promise.all([this.rows.totpEnabled(userId), this.passkeyCount(userId)]);
    return this.methods(totp, passkeys);
  }

  /** Whether the user has a second factor (the workspace policy `requireTwoFactor`). */
  async hasSecondFactor(userId: string): Promise<boolean> {
    return (await this.rows.totpEnabled(userId)) || (await this.passkeyCount(userId)) > 0;
  }

  /** Starts (or restarts) enrolment: a new secret, not used for sign-in until a code confirms it. */
  async startTotp(userId: string): Promise<TotpEnrolmentView> {
    const user = await this.user(userId);
    const existing = await this.rows.findTotp(this.dataSource.manager, user.id);
    if (existing?.enabledAt) throw alreadyEnabled();
    const secret = generateSecret();
    const sealed = this.sealer.seal(secret, totpAad(user.id));
    await this.dataSource.transaction(async (m) => {
      await this.rows.upsertPendingTotp(m, { userId: user.id, secretKeyId: sealed.keyId, secretNonce: sealed.nonce, secretCiphertext: sealed.ciphertext });
      // Enabled meanwhile by a concurrent confirm: the upsert left it alone, and so must the answer.
      if ((await this.rows.findTotp(m, user.id))?.enabledAt) throw alreadyEnabled();
    });
    const otpauthUrl = generateURI({ issuer: ISSUER, label: user.email, secret, period: PERIOD_SECONDS });
    const svg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { secret, otpauthUrl, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}` };
  }

  async confirmTotp(userId: string, code: string): Promise<RecoveryCodesView> {
    const user = await this.user(userId);
    return this.dataSource.transaction(async (m) => {
      const totp = await this.rows.lockTotp(m, user.id);
      if (!totp) throw twoFactorError('totp_not_started', 'No TOTP enrolment to confirm: start one with POST /auth/2fa/totp');
      if (totp.enabledAt) throw alreadyEnabled();
      if (!(await this.checkTotp(m, totp, code, this.clock.now()))) throw invalidCode();
      const recoveryCodes = await this.replaceRecoveryCodes(m, user.id);
      await this.recordForUser(m, user, 'two_factor.enabled', ['totp']);
      return { recoveryCodes };
    });
  }

  /**
   * Turns TOTP off; needs the password and a current TOTP code or a recovery code, so a
   * stolen session alone cannot remove the second factor. Both count as one attempt with
   * the sign-in limits (AuthThrottle), from `ip`: a wrong password or a wrong code keeps it.
   */
  async disableTotp(userId: string, password: string, code: string, ip: string): Promise<void> {
    const user = await this.user(userId);
    await this.withCodeAttempt(user, ip, async () => {
      if (!(await verifyPassword(password, user.passwordHash))) return 'wrong_password';
      return this.dataSource.transaction(async (m) => {
        const totp = await this.lockEnabled(m, user.id);
        if (!(await this.checkCode(m, totp, code))) return 'wrong_code';
        await this.rows.deleteTotp(m, user.id);
        await this.recordForUser(m, user, 'two_factor.disabled', ['totp']);
        return undefined;
      });
    });
  }

  /** Needs a current TOTP code or a recovery code, counted like disableTotp's. */
  async regenerateRecoveryCodes(userId: string, code: string, ip: string): Promise<RecoveryCodesView> {
    const user = await this.user(userId);
    return this.withCodeAttempt(user, ip, () =>
      this.dataSource.transaction(async (m) => {
        const totp = await this.lockEnabled(m, user.id);
        if (!(await this.checkCode(m, totp, code))) return 'wrong_code';
        const recoveryCodes = await this.replaceRecoveryCodes(m, user.id);
        await this.recordForUser(m, user, 'two_factor.recovery_codes_regenerated', ['recoveryCodes']);
        return { recoveryCodes };
      }),
    );
  }

  /** A new login challenge for the user (their password was right): the opaque value to hand out. */
  async issueChallenge(userId: string): Promise<string> {
    const challenge = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.dataSource.transaction((m) =>
      this.rows.insertChallenge(m, { tokenHash: challengeHash(challenge), userId, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) }, now),
    );
    return challenge;
  }

  /** The user an unexpired challenge was issued to, or null (unknown, expired, used); nothing is consumed. */
  async challengeUser(challenge: string): Promise<string | null> {
    return (await this.rows.findChallenge(challengeHash(challenge), this.clock.now()))?.userId ?? null;
  }

  /**
   * In the caller's transaction: consumes the challenge when `answer` proves the second
   * factor of its user. 'challenge' when the challenge is gone (used by a concurrent
   * answer, or expired meanwhile), 'wrong' when the answer does not prove it (the
   * challenge stays for another try, within the sign-in limits).
   */
  async answerChallenge(
    m: EntityManager,
    challenge: string,
    answer: SecondFactorAnswer,
  ): Promise<{ ok: true; userId: string } | { ok: false; reason: 'challenge' | 'wrong' }> {
    const found = await this.rows.lockChallenge(m, challengeHash(challenge), this.clock.now());
    if (!found) return { ok: false, reason: 'challenge' };
    const userId = found.userId;
    let ok: boolean;
    if ('totp' in answer) {
      const totp = await this.rows.lockTotp(m, userId);
      ok = !!totp?.enabledAt && (await this.checkTotp(m, totp, answer.totp, this.clock.now()));
    } else if ('recoveryCode' in answer) {
      ok = (await this.rows.totpEnabled(userId)) && (await this.rows.useRecoveryCode(m, userId, recoveryCodeHash(userId, answer.recoveryCode)));
    } else {
      ok = this.passkeys ? await this.passkeys.verifySecondFactor(userId, answer.passkey) : false;
    }
    if (!ok) return { ok: false, reason: 'wrong' };
    await this.rows.deleteChallenge(m, found.tokenHash);
    return { ok: true, userId };
  }

  /**
   * In the caller's transaction: whether `code` is a current TOTP code or an unused recovery
   * code (used up) of a user whose TOTP is on. POST /auth/reauthenticate's second factor.
   */
  async checkCurrentCode(m: EntityManager, userId: string, code: string): Promise<boolean> {
    const totp = await this.rows.lockTotp(m, userId);
    return !!totp?.enabledAt && (await this.checkCode(m, totp, code));
  }

  /**
   * Runs `attempt` (a check of the password or a code, and what it guards) as one sign-in
   * attempt of `user` from `ip`, as loginSecondFactor does: taken before the check, so a
   * stolen session cannot guess codes past the limits (429, even for the right code). A wrong
   * answer keeps it and a right one counts as a successful sign-in; anything thrown ended
   * before the answer was judged (409 totp_not_enabled, hashing busy, database down) and
   * gives it back, which is why `attempt` reports a wrong answer instead of throwing it.
   */
  private async withCodeAttempt<T>(user: User, ip: string, attempt: () => Promise<T | 'wrong_password' | 'wrong_code'>): Promise<T> {
    await this.throttle.reserveLoginAttempt(user.email, ip);
    let outcome: T | 'wrong_password' | 'wrong_code';
    try {
      outcome = await attempt();
    } catch (err) {
      await this.throttle.refundLoginAttempt(user.email, ip).catch(() => undefined);
      throw err;
    }
    if (outcome === 'wrong_password') throw withBearerChallenge(authError('invalid_login', 'Wrong password'));
    if (outcome === 'wrong_code') throw invalidCode('code: not a current TOTP code nor an unused recovery code');
    await this.throttle.loginSucceeded(user.email, ip);
    return outcome;
  }

  private async user(userId: string): Promise<User> {
    const user = await this.users.findById(userId);
    // A JWT outlives nothing: its user exists while its session is open.
    if (!user) throw new Error(`user ${userId} of an open session is gone`);
    return user;
  }

  private methods(totp: boolean, passkeys: number): TwoFactorMethod[] {
    return [...(totp ? (['totp', 'recovery_code'] as const) : []), ...(passkeys > 0 ? (['passkey'] as const) : [])];
  }

  private async passkeyCount(userId: string): Promise<number> {
    return this.passkeys ? this.passkeys.countFor(userId) : 0;
  }

  private async lockEnabled(m: EntityManager, userId: string): Promise<TotpCredential> {
    const totp = await this.rows.lockTotp(m, userId);
    if (!totp?.enabledAt) throw twoFactorError('totp_not_enabled', 'TOTP is not on for this account');
    return totp;
  }

  /** A current TOTP code or an unused recovery code (used up here). */
  private async checkCode(m: EntityManager, totp: TotpCredential, code: string): Promise<boolean> {
    if (looksLikeTotpCode(code)) return this.checkTotp(m, totp, code, this.clock.now());
    return this.rows.useRecoveryCode(m, totp.userId, recoveryCodeHash(totp.userId, code));
  }

  /**
   * Whether `code` is the TOTP of a step within ±1 of now and later than the last step
   * accepted; if so, that step is recorded (the row is locked by the caller), so the same
   * code, or an older one, is refused from then on.
   */
  private async checkTotp(m: EntityManager, totp: TotpCredential, code: string, now: Date): Promise<boolean> {
    const token = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(token)) return false;
    const secret = this.sealer.open(
      { keyId: totp.secretKeyId, nonce: totp.secretNonce, ciphertext: totp.secretCiphertext },
      totpAad(totp.userId),
      'A TOTP secret',
    );
    const result = await verify({
      secret,
      token,
      period: PERIOD_SECONDS,
      epoch: Math.floor(now.getTime() / 1000),
      epochTolerance: TOLERANCE_SECONDS,
      ...(totp.lastUsedStep === null ? {} : { afterTimeStep: totp.lastUsedStep }),
    });
    // A TOTP result carries its time step (the HOTP half of otplib's union does not).
    if (!result.valid || !('timeStep' in result)) return false;
    await this.rows.useStep(m, totp.userId, result.timeStep, now);
    return true;
  }

  private async replaceRecoveryCodes(m: EntityManager, userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.rows.replaceRecoveryCodes(
      m,
      userId,
      codes.map((code) => recoveryCodeHash(userId, code)),
    );
    return codes;
  }

  private recordForUser(m: EntityManager, user: User, action: string, changes: string[]): Promise<void> {
    return this.audit.recordForUser(m, user.id, { action, target: { type: 'user', id: user.id, label: user.email }, changes });
  }
}

function challengeHash(challenge: string): string {
  return createHash('sha256').update(challenge, 'utf8').digest('hex');
}

function alreadyEnabled() {
  return twoFactorError('totp_already_enabled', 'TOTP is already on for this account; turn it off first to enrol another authenticator');
}

function invalidCode(message = 'code: not the current code of your authenticator (or already used)') {
  return twoFactorError('invalid_totp_code', message);
}
