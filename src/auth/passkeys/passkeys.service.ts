import { createHash, randomUUID } from 'node:crypto';

import { Injectable, Logger, Optional } from '@nestjs/common';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';

import { currentAuditRequest } from '../../audit/audit-context';
import { AuditLogService } from '../../audit/audit-log.service';
import { uniqueViolation } from '../../common/db-errors';
import { ApiError, unauthorized } from '../../common/errors';
import { newId } from '../../common/ids';
import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { userView } from '../../users/user.view';
import { UsersService } from '../../users/users.service';
import type { LoginView } from '../auth.view';
import { SessionsService } from '../sessions/sessions.service';
import { SsoPasswordPolicy } from '../sso-password-policy';
import type { PasskeyVerifier } from '../two-factor/passkey-verifier';
import { AuthenticationResponseDto, type RegisterPasskeyDto } from './dto/passkey.dto';
import type { Passkey, PasskeyChallengePurpose } from './passkey.entities';
import { type PasskeyView, passkeyView } from './passkey.view';
import { passkeysError } from './passkeys.errors';
import { PasskeysRepository } from './passkeys.repository';
import { type RelyingParty, relyingParty } from './relying-party';

/** How long an issued challenge can be answered. */
const CHALLENGE_TTL_MS = 5 * 60_000;
/** What the browser is told to wait for the person (the challenge outlives it). */
const CEREMONY_TIMEOUT_MS = 120_000;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** The challenge a WebAuthn answer's client data carries, or null when it is not readable client data. */
function answeredChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length > 0 ? data.challenge : null;
  } catch {
    return null;
  }
}

/** Why the library refused an answer, for the message: its own wording names the check (origin, RP id, signature, counter). */
const reason = (err: unknown) => (err instanceof Error ? err.message : 'the answer could not be verified');

/** The signed-in person's account, as the passkey routes need it. */
interface Account {
  id: string;
  email: string;
  name: string;
}

/**
 * Passkeys one person may register. Each one is a row read at every passwordless sign-in
 * of theirs and an entry in every registration's excludeCredentials; people keep a few
 * (a phone, a laptop, a security key or two), so 20 leaves room and bounds what a
 * scripted account can pile up.
 */
export const MAX_PASSKEYS_PER_USER = 20;

function assertBelowCap(count: number): void {
  if (count >= MAX_PASSKEYS_PER_USER) {
    throw passkeysError('passkey_limit_reached', `You have ${count} passkeys, the most one account may register (${MAX_PASSKEYS_PER_USER}): delete one first`);
  }
}

/**
 * Passkeys (issue 32): WebAuthn credentials a person registers, used for a passwordless
 * sign-in (a passkey with user verification is two factors by itself) and as the
 * second factor after a password (PASSKEY_VERIFIER). The relying party follows the API
 * host (relying-party.ts). Challenges are issued here, kept hashed in PostgreSQL and taken
 * out when answered, right or wrong: each is answered at most once.
 */
@Injectable()
export class PasskeysService implements PasskeyVerifier {
  private readonly logger = new Logger(PasskeysService.name);
  private readonly rp: RelyingParty;

  constructor(
    private readonly dataSource: DataSource,
    private readonly passkeys: PasskeysRepository,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly audit: AuditLogService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    // Bound by src/sso, as for AuthService; absent in an app built without it.
    @Optional() private readonly ssoPolicy?: SsoPasswordPolicy,
  ) {
    this.rp = relyingParty(config);
  }

  async registrationOptions(userId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.account(userId);
    const existing = await this.passkeys.listForUser(this.dataSource.manager, userId);
    assertBelowCap(existing.length);
    const options = await generateRegistrationOptions({
      rpName: this.config.PRODUCT_NAME,
      rpID: this.rp.id,
      userName: user.email,
      userDisplayName: user.name,
      // The user handle a discoverable passkey hands back at sign-in: the user id, checked against the passkey's owner.
      userID: new TextEncoder().encode(user.id),
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.issueChallenge(options.challenge, 'registration', userId);
    return options;
  }

  async register(userId: string, dto: RegisterPasskeyDto): Promise<PasskeyView> {
    const challenge = answeredChallenge(dto.response.response.clientDataJSON);
    if (!challenge) throw passkeysError('invalid_passkey_response', 'response.response.clientDataJSON is not WebAuthn client data with a challenge');
    // Taken out in its own transaction: a refused answer must still use it up.
    if (!(await this.dataSource.transaction((m) => this.takeChallenge(m, challenge, 'registration', userId)))) {
      throw passkeysError(
        'invalid_passkey_response',
        'The challenge was not issued to you by POST /auth/passkeys/registration-options, has expired or was already answered',
      );
    }
    let info;
    try {
      const verified = await verifyRegistrationResponse({
        response: dto.response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.rp.origins,
        expectedRPID: this.rp.id,
        requireUserVerification: false,
      });
      if (!verified.verified) throw new Error('the registration was not verified');
      info = verified.registrationInfo;
    } catch (err) {
      throw passkeysError('invalid_passkey_response', `The passkey was refused: ${reason(err)}`);
    }
    return this.dataSource.transaction(async (m) => {
      // Checked again here: the options were issued before, and another registration may have landed since.
      assertBelowCap(await this.passkeys.countForUserLocked(m, userId));
      const passkey: Omit<Passkey, 'createdAt' | 'user'> = {
        id: newId('pk'),
        userId,
        credentialId: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey),
        counter: info.credential.counter,
        transports: info.credential.transports ?? [],
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        name: dto.name ?? this.defaultName(),
        lastUsedAt: null,
      };
      try {
        await this.passkeys.insert(m, passkey);
      } catch (err) {
        if (uniqueViolation(err) === 'UQ_passkeys_credential_id') {
          throw passkeysError('passkey_already_registered', 'This passkey is already registered');
        }
        throw err;
      }
      await this.audit.recordForUser(m, userId, {
        action: 'passkey.registered',
        target: { type: 'passkey', id: passkey.id, label: passkey.name },
        changes: ['name'],
      });
      const created = await this.passkeys.findForUser(m, userId, passkey.id);
      return passkeyView(created!);
    });
  }

  async list(userId: string): Promise<{ data: PasskeyView[] }> {
    return { data: (await this.passkeys.listForUser(this.dataSource.manager, userId)).map(passkeyView) };
  }

  async rename(userId: string, passkeyId: string, name: string): Promise<PasskeyView> {
    return this.dataSource.transaction(async (m) => {
      const passkey = await this.owned(m, userId, passkeyId);
      await this.passkeys.rename(m, passkey.id, name);
      await this.audit.recordForUser(m, userId, { action: 'passkey.renamed', target: { type: 'passkey', id: passkey.id, label: name }, changes: ['name'] });
      return passkeyView({ ...passkey, name });
    });
  }

  async remove(userId: string, passkeyId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const passkey = await this.owned(m, userId, passkeyId);
      await this.passkeys.delete(m, passkey.id);
      await this.audit.recordForUser(m, userId, { action: 'passkey.deleted', target: { type: 'passkey', id: passkey.id, label: passkey.name } });
    });
  }

  /** Options for any passkey of this site (no allowCredentials): the browser offers the person's discoverable passkeys. */
  async authenticationOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: this.rp.id, timeout: CEREMONY_TIMEOUT_MS, userVerification: 'preferred' });
    await this.issueChallenge(options.challenge, 'authentication', null);
    return options;
  }

  /**
   * A complete sign-in with a passkey: the authenticator must have verified the person
   * (PIN, biometrics), which with the key's possession makes two factors.
   */
  async signIn(response: AuthenticationResponseDto): Promise<LoginView> {
    const outcome = await this.authenticate(response, { requireUserVerification: true });
    if (!outcome.ok) throw outcome.refusal ?? passkeysError('passkey_not_accepted', `Passkey sign-in refused: ${outcome.reason}`);
    return outcome.signedIn!;
  }

  countFor(userId: string): Promise<number> {
    return this.passkeys.countForUser(userId);
  }

  verifySecondFactor(userId: string, response: unknown): Promise<boolean> {
    return this.verifyOwn(userId, response, false);
  }

  verifyIdentity(userId: string, response: unknown): Promise<boolean> {
    return this.verifyOwn(userId, response, true);
  }

  private async verifyOwn(userId: string, response: unknown, requireUserVerification: boolean): Promise<boolean> {
    const dto = plainToInstance(AuthenticationResponseDto, response);
    if (typeof response !== 'object' || response === null || validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }).length > 0) return false;
    try {
      const outcome = await this.authenticate(dto, { requireUserVerification, userId });
      return outcome.ok;
    } catch (err) {
      this.logger.warn(`passkey second factor of ${userId} failed: ${reason(err)}`);
      return false;
    }
  }

  /**
   * Checks a WebAuthn sign-in answer: its challenge (taken out, single use), the passkey
   * it names, and the signature, origin, RP id and counter (the library). With `userId`
   * (a second factor) the passkey must be that user's and no session starts; without it
   * the passkey's owner is signed in, in the same transaction as the counter's update,
   * unless the SSO policy refuses them (`refusal`, for the caller to throw).
   */
  private async authenticate(
    response: AuthenticationResponseDto,
    opts: { requireUserVerification: boolean; userId?: string },
  ): Promise<{ ok: true; signedIn?: LoginView } | { ok: false; reason: string; refusal?: unknown }> {
    const challenge = answeredChallenge(response.response.clientDataJSON);
    if (!challenge) return { ok: false, reason: 'response.response.clientDataJSON is not WebAuthn client data with a challenge' };
    // The challenge is taken out in its own transaction: a refused answer must still use it up.
    const issued = await this.dataSource.transaction((m) => this.takeChallenge(m, challenge, 'authentication', null));
    if (!issued)
      return { ok: false, reason: 'the challenge was not issued by POST /auth/passkeys/authentication-options, has expired or was already answered' };
    return this.dataSource.transaction(async (m) => {
      const passkey = await this.passkeys.findByCredentialId(m, response.id);
      if (!passkey || (opts.userId !== undefined && passkey.userId !== opts.userId)) return { ok: false, reason: 'this passkey is not registered here' };
      const handle = response.response.userHandle;
      if (handle !== undefined && handle !== '' && Buffer.from(handle, 'base64url').toString('utf8') !== passkey.userId) {
        return { ok: false, reason: 'the passkey’s user handle does not match its owner' };
      }
      let info;
      try {
        const verified = await verifyAuthenticationResponse({
          response: response as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: this.rp.origins,
          expectedRPID: this.rp.id,
          credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
          requireUserVerification: opts.requireUserVerification,
        });
        if (!verified.verified) return { ok: false, reason: 'the signature was not verified' };
        info = verified.authenticationInfo;
      } catch (err) {
        return { ok: false, reason: reason(err) };
      }
      const now = this.clock.now();
      await this.passkeys.markUsed(m, passkey.id, { counter: info.newCounter, backedUp: info.credentialBackedUp, lastUsedAt: now });
      if (opts.userId !== undefined) return { ok: true };
      const user = await this.users.findById(passkey.userId, m);
      if (!user) return { ok: false, reason: 'this passkey is not registered here' };
      // An enforced domain signs in through its provider only, passkeys included (the same 403
      // sso_required as a password), asked once the signature is good so an unverified answer learns
      // nothing. Thrown after the commit: the counter the authenticator moved on is kept.
      try {
        await this.ssoPolicy?.passwordSignIn(user, 'complete', m);
      } catch (refusal) {
        // Only the policy's 403 is a refusal; anything else (the database) has aborted the
        // transaction, and returning would turn its COMMIT into a silent rollback.
        if (!(refusal instanceof ApiError)) throw refusal;
        return { ok: false, reason: 'single sign-on is required', refusal };
      }
      const pair = await this.sessions.start(m, user.id);
      await this.audit.recordForUser(m, user.id, {
        action: 'user.signed_in',
        actor: { type: 'user', id: user.id, label: user.email },
        target: { type: 'user', id: user.id, label: user.email },
        changes: ['passkey'],
      });
      return { ok: true, signedIn: { ...pair, user: userView(user) } };
    });
  }

  private async issueChallenge(challenge: string, purpose: PasskeyChallengePurpose, userId: string | null): Promise<void> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (m) => {
      await this.passkeys.deleteExpiredChallenges(m, now);
      await this.passkeys.insertChallenge(m, {
        id: randomUUID(),
        tokenHash: sha256(challenge),
        purpose,
        userId,
        expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      });
    });
  }

  private takeChallenge(m: EntityManager, challenge: string, purpose: PasskeyChallengePurpose, userId: string | null): Promise<boolean> {
    return this.passkeys.takeChallenge(m, sha256(challenge), purpose, userId, this.clock.now());
  }

  private async owned(m: EntityManager, userId: string, passkeyId: string): Promise<Passkey> {
    const passkey = await this.passkeys.findForUser(m, userId, passkeyId);
    if (!passkey) throw passkeysError('passkey_not_found', `Passkey ${passkeyId} not found`);
    return passkey;
  }

  private async account(userId: string): Promise<Account> {
    const user = await this.users.findById(userId);
    // A deleted account's sessions end with it (refresh_tokens cascade), so this is a race at most.
    if (!user) throw unauthorized('The signed-in account no longer exists');
    return user;
  }

  /** “Chrome passkey”: the browser family it was registered from, which is what a person tells their passkeys apart by. */
  private defaultName(): string {
    const family = currentAuditRequest()?.userAgent;
    return family ? `${family} passkey` : 'Passkey';
  }
}
