import { randomBytes } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService } from '../audit/audit-log.service';
import type { TokenPairView } from '../auth/auth.view';
import { UnverifiedAccountTakeback } from '../auth/recovery/unverified-account.service';
import { SessionsService } from '../auth/sessions/sessions.service';
import { addressKey } from '../common/address-prefix';
import { attemptCounter } from '../common/attempt-counter';
import { tooManyAttempts } from '../common/errors';
import { newId } from '../common/ids';
import { hashPassword } from '../common/password-hash';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import type { Email } from '../shared/email';
import type { User } from '../users/user.entity';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import { oidc } from './oidc-client';
import { OidcConfigurations } from './oidc-configurations.service';
import type { SsoConnection } from './sso.entities';
import { ssoError } from './sso.errors';
import { SsoRepository } from './sso.repository';
import { SsoService } from './sso.service';
import { emailDomain, judgeEmail, sameBrowser, type SsoCallbackError, stateHash } from './sso-rules';

/** Long enough to type a password and a code at the provider; a sign-in left longer starts again. */
export const SSO_LOGIN_TTL_SECONDS = 10 * 60;

export type CallbackOutcome = { ok: true; pair: TokenPairView } | { ok: false; error: SsoCallbackError };

/** Where to send the browser, and the value its cookie must hold when it comes back (sso-cookie.ts). */
export interface SsoStart {
  url: string;
  browserValue: string;
}

/**
 * Signing in through a workspace's provider (OpenID Connect authorization code flow with
 * PKCE S256, state and nonce, by openid-client): `start` sends the person to the
 * provider, `callback` checks what comes back and opens a session.
 */
@Injectable()
export class SsoLoginService {
  private readonly logger = new Logger(SsoLoginService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly sso: SsoRepository,
    private readonly settings: SsoService,
    private readonly oidc: OidcConfigurations,
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly usersRepository: UsersRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly takeback: UnverifiedAccountTakeback,
    private readonly audit: AuditLogService,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.starts = attemptCounter(dataSource, 'sso-start', config.SSO_START_MAX_PER_ADDRESS, config.SSO_START_WINDOW_SECONDS);
  }

  /** Starts per client address (SSO_START_MAX_PER_ADDRESS): each start stores a pending sign-in. */
  private readonly starts: RateLimiterPostgres;

  /** The provider's authorization URL for the workspace that verified the email's domain (or the workspace named). */
  async start(by: { email?: string; workspace?: string }, ip: string): Promise<SsoStart> {
    try {
      await this.starts.consume(addressKey(ip), 1);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw tooManyAttempts('Too many single sign-on starts from this address', err.msBeforeNext);
      throw err;
    }
    const m = this.dataSource.manager;
    let workspaceId: string | null = null;
    if (by.email) {
      const domain = emailDomain(by.email);
      workspaceId = domain ? await this.sso.verifiedOwner(m, domain) : null;
      if (!workspaceId) throw ssoError('sso_not_configured', `No workspace signs in ${domain ?? by.email} through single sign-on: sign in with a password`);
    } else if (by.workspace) {
      const verified = (await this.sso.domainsOf(m, by.workspace)).some((d) => d.verifiedAt);
      if (verified) workspaceId = by.workspace;
      if (!workspaceId) throw ssoError('sso_not_configured', `Workspace ${by.workspace} has no single sign-on with a verified domain`);
    } else {
      throw ssoError('sso_not_configured', 'Give email (or workspace) to find the single sign-on to use');
    }
    const connection = await this.sso.findConnection(m, workspaceId);
    if (!connection) throw ssoError('sso_not_configured', `Workspace ${workspaceId} has no single sign-on set up`);
    const config = await this.configuration(connection);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const browserValue = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.sso.purgeLogins(m, now);
    await this.sso.insertLogin(m, {
      stateHash: stateHash(state),
      workspaceId,
      codeVerifier,
      nonce,
      browserHash: stateHash(browserValue),
      expiresAt: new Date(now.getTime() + SSO_LOGIN_TTL_SECONDS * 1000),
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.oidc.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(by.email ? { login_hint: by.email } : {}),
    });
    return { url: url.href, browserValue };
  }

  /**
   * What the provider sent back (`query`: the callback's query string) to the browser whose
   * cookie holds `browserValue`. The sign-in under way is taken (single use) before anything
   * else, so a second callback with the same state finds nothing, whatever happens to the
   * first; one that reached another browser is used up too, and signs nobody in.
   */
  async callback(query: string, browserValue: string | undefined): Promise<CallbackOutcome> {
    const params = new URLSearchParams(query);
    const state = params.get('state');
    const login = state ? await this.sso.takeLogin(this.dataSource.manager, stateHash(state)) : null;
    if (!login || login.expiresAt.getTime() <= this.clock.now().getTime()) return { ok: false, error: 'invalid_state' };
    if (!sameBrowser(browserValue, login.browserHash)) {
      // Worth a line: a link to someone else's finished sign-in is what a login CSRF looks like.
      this.logger.warn(`SSO sign-in to ${login.workspaceId} refused (invalid_state): the callback came to a browser that did not start it`);
      return { ok: false, error: 'invalid_state' };
    }
    if (params.has('error')) return { ok: false, error: 'provider_refused' };
    const connection = await this.sso.findConnection(this.dataSource.manager, login.workspaceId);
    if (!connection) return { ok: false, error: 'sso_not_configured' };
    const config = await this.configuration(connection);
    const currentUrl = new URL(this.oidc.redirectUri);
    currentUrl.search = params.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: state!,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      // Providers that keep the email out of the ID token give it at the userinfo endpoint, for the same subject.
      if (claims.email === undefined && tokens.access_token) {
        claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub as string)), ...claims };
      }
    } catch (err) {
      const error: SsoCallbackError =
        err instanceof oidc.AuthorizationResponseError ? 'provider_refused' : err instanceof oidc.ResponseBodyError ? 'code_rejected' : 'invalid_id_token';
      // openid-client's message is generic ("unexpected JWT claim value"); the claim is named two causes down.
      const inner = (err as { cause?: { cause?: { claim?: unknown } } }).cause;
      const claim = inner?.cause?.claim;
      this.logger.warn(
        `SSO sign-in to ${login.workspaceId} refused (${error}): ${(err as Error).message}${typeof claim === 'string' ? ` (claim ${claim})` : ''}`,
      );
      return { ok: false, error };
    }
    const domains = (await this.sso.domainsOf(this.dataSource.manager, login.workspaceId)).filter((d) => d.verifiedAt).map((d) => d.domain);
    const judged = judgeEmail(claims, domains);
    if (!judged.ok) return judged;
    const email = judged.email as Email;
    const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 100) : email.slice(0, email.indexOf('@'));
    // Hashed before the transaction: scrypt holds no connection.
    const unusable = await hashPassword(randomBytes(32).toString('base64'));
    const pair = await this.dataSource.transaction(async (m) => {
      const user = await this.account(m, email, name, unusable);
      await this.join(m, connection, user);
      await this.audit.recordForUser(m, user.id, {
        action: 'user.signed_in',
        actor: { type: 'user', id: user.id, label: user.email },
        target: { type: 'user', id: user.id, label: user.email },
        changes: ['sso'],
      });
      return this.sessions.start(m, user.id);
    });
    return { ok: true, pair };
  }

  private configuration(connection: SsoConnection) {
    return this.oidc.forWorkspace(connection.workspaceId, connection, () => this.settings.openSecret(connection));
  }

  /**
   * The account of the provider's verified email, made on first sign-in (with a password
   * nobody knows: a reset mail sets one). An existing account whose address was never
   * verified is taken back: the provider just proved who reads that mail, and whoever
   * registered the address before (perhaps not them) must not keep a way in.
   */
  private async account(m: EntityManager, email: Email, name: string, unusablePassword: string): Promise<User> {
    const found = await this.usersRepository.findByEmail(m, email);
    // Locked: two first sign-ins of one address queue here, and the second sees it verified.
    const existing = found && (await this.usersRepository.lockById(m, found.id));
    const now = this.clock.now();
    if (existing) {
      if (!existing.emailVerifiedAt) {
        await this.takeback.takeBack(m, existing, now, 'single sign-on');
        await this.usersRepository.update(m, existing.id, { emailVerifiedAt: now, passwordHash: unusablePassword });
      }
      return existing;
    }
    const user = await this.users.create(m, { email, name, passwordHash: unusablePassword });
    await this.usersRepository.update(m, user.id, { emailVerifiedAt: now });
    return user;
  }

  /** Makes the person a member with the SSO's default role, unless they are one; a pending invitation is accepted with its own role. */
  private async join(m: EntityManager, connection: SsoConnection, user: User): Promise<void> {
    const workspaceId = connection.workspaceId;
    if (await this.workspaces.activeRole(workspaceId, user.id)) return;
    const now = this.clock.now();
    const invitation = (await this.workspaces.pageInvitations(user.email, 1, 100)).rows.find((r) => r.workspaceId === workspaceId);
    let memberId: string;
    let role: string;
    if (invitation && (await this.workspaces.acceptInvitation(m, invitation.id, user.email, user.id, now))) {
      memberId = invitation.id;
      role = invitation.role;
    } else {
      memberId = newId('mem');
      role = connection.defaultRole;
      await this.workspaces.insertMember(m, {
        id: memberId,
        workspaceId,
        email: user.email,
        role: connection.defaultRole,
        status: 'active',
        userId: user.id,
        joinedAt: now,
      });
    }
    await this.audit.record(m, {
      workspaceId,
      action: 'member.joined',
      actor: { type: 'user', id: user.id, label: user.email },
      target: { type: 'member', id: memberId, label: user.email },
      changes: ['role'],
    });
    this.logger.log(`SSO added ${user.id} to ${workspaceId} as ${role}`);
  }
}
