import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { SessionsService } from '../auth/sessions/sessions.service';
import { SsoPasswordPolicy } from '../auth/sso-password-policy';
import { uniqueViolation } from '../common/db-errors';
import { badRequest } from '../common/errors';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { DomainDns } from '../domains/domain-dns.service';
import { LeadsKeyring } from '../leads/keyring';
import { openEmail, sealEmail } from '../leads/lead-crypto';
import { domainRules } from '../shared/custom-domain/custom-domain';
import { challengeName, judge, newDomainToken } from '../shared/custom-domain/domain-check';
import { domainsError } from '../shared/custom-domain/domains.errors';
import { InvalidDomainError, normaliseDomain } from '../shared/domain-name';
import type { Principal } from '../shared/principal';
import { UsersService } from '../users/users.service';
import type { OwnerLeaves } from '../workspaces/owner-leaves';
import type { PutSsoDto } from './dto/sso.dto';
import { OidcConfigurations } from './oidc-configurations.service';
import { type SsoConnection } from './sso.entities';
import { ssoError } from './sso.errors';
import { SsoRepository } from './sso.repository';
import { type SsoDomainVerificationView, type SsoView, ssoView } from './sso.view';
import { clientSecretAad, emailDomain } from './sso-rules';

/**
 * A workspace's single sign-on settings (issue 32): the provider, the email domains it
 * claims (each proved by a DNS TXT record, as custom domains are) and whether password
 * sign-in is closed to those domains. Also the password sign-in's SSO check.
 */
@Injectable()
export class SsoService extends SsoPasswordPolicy implements OwnerLeaves {
  private readonly logger = new Logger(SsoService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly sso: SsoRepository,
    private readonly oidc: OidcConfigurations,
    private readonly keyring: LeadsKeyring,
    private readonly dns: DomainDns,
    private readonly audit: AuditLogService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
  ) {
    super();
  }

  async get(workspaceId: string): Promise<SsoView> {
    const connection = await this.sso.findConnection(this.dataSource.manager, workspaceId);
    if (!connection) throw notConfigured(workspaceId);
    return ssoView(connection, await this.sso.domainsOf(this.dataSource.manager, workspaceId), this.oidc.redirectUri);
  }

  async put(principal: Principal, workspaceId: string, dto: PutSsoDto): Promise<SsoView> {
    const domains = this.normaliseDomains(dto.emailDomains);
    const existing = await this.sso.findConnection(this.dataSource.manager, workspaceId);
    if (!existing && !dto.clientSecret) {
      throw ssoError('client_secret_required', 'clientSecret is required the first time single sign-on is set up (later it is kept when omitted)');
    }
    const secret = dto.clientSecret ?? this.openSecret(existing!);
    // Fetched before anything is saved: settings that cannot sign anyone in are refused.
    try {
      await this.oidc.discover(dto.issuer, dto.clientId, secret);
    } catch (err) {
      // openid-client wraps what its fetch threw as "something went wrong": the cause says what.
      const cause = (err as Error).cause;
      const reason = cause instanceof Error && (err as Error).message === 'something went wrong' ? cause.message : (err as Error).message;
      throw ssoError('sso_discovery_failed', `issuer: the OpenID discovery document of ${dto.issuer} could not be used: ${reason}`);
    }
    await this.refuseClaimed(workspaceId, domains);
    return this.dataSource.transaction(async (m) => {
      const current = await this.sso.lockConnection(m, workspaceId);
      // Read before Object.assign below changes `current` in place.
      const wasEnforced = current?.enforce ?? false;
      const sealed = dto.clientSecret !== undefined || !current ? this.sealSecret(workspaceId, secret) : undefined;
      const row = Object.assign(current ?? ({ workspaceId } as SsoConnection), {
        issuer: dto.issuer,
        clientId: dto.clientId,
        defaultRole: dto.defaultRole,
        enforce: dto.enforce,
        // Who turned enforcement on keeps a password sign-in (break glass); a later PUT that keeps it on keeps them.
        enforcedBy: dto.enforce ? (wasEnforced ? current!.enforcedBy : principal.userId!) : null,
        ...(sealed ? { secretKeyId: sealed.keyId, secretNonce: sealed.nonce, secretCiphertext: sealed.ciphertext } : {}),
      });
      const saved = await this.sso.saveConnection(m, row);
      const kept = new Map((await this.sso.domainsOf(m, workspaceId)).map((d) => [d.domain, d.token]));
      await this.sso.replaceDomains(
        m,
        workspaceId,
        domains.map((domain) => ({ domain, token: kept.get(domain) ?? newDomainToken() })),
      );
      if (saved.enforce && !wasEnforced) {
        const verified = (await this.sso.domainsOf(m, workspaceId)).filter((d) => d.verifiedAt).map((d) => d.domain);
        await this.endSessionsAt(m, verified, saved.enforcedBy);
      }
      await this.audit.record(m, {
        workspaceId,
        action: 'sso.updated',
        target: { type: 'sso', id: workspaceId, label: dto.issuer },
        changes: changedFields(dto),
      });
      return ssoView(saved, await this.sso.domainsOf(m, workspaceId), this.oidc.redirectUri);
    });
  }

  async delete(workspaceId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const current = await this.sso.lockConnection(m, workspaceId);
      if (!current) throw notConfigured(workspaceId);
      await this.sso.deleteConnection(m, workspaceId);
      await this.audit.record(m, { workspaceId, action: 'sso.deleted', target: { type: 'sso', id: workspaceId, label: current.issuer } });
    });
  }

  /** Looks up the domain's TXT record now; verified, the domain is claimed for this workspace (by no other). */
  async verifyDomain(workspaceId: string, rawDomain: string): Promise<SsoDomainVerificationView> {
    const domain = this.normaliseDomain(rawDomain, 'domain');
    const connection = await this.sso.findConnection(this.dataSource.manager, workspaceId);
    if (!connection) throw notConfigured(workspaceId);
    const row = (await this.sso.domainsOf(this.dataSource.manager, workspaceId)).find((d) => d.domain === domain);
    if (!row)
      throw ssoError('sso_domain_not_listed', `${domain} is not among the emailDomains of workspace ${workspaceId}'s single sign-on; add it with PUT first`);
    if (row.verifiedAt) return { domain, verified: true };
    await this.refuseClaimed(workspaceId, [domain]);
    const txtName = challengeName(domain);
    const lookup = await this.dns.lookup(txtName, domain);
    // Only the TXT record decides (the CNAME of custom domains means nothing here).
    const { verdict, records } = judge(
      [
        { type: 'TXT', name: txtName, value: row.token },
        { type: 'CNAME', name: domain, value: '' },
      ],
      lookup.txt,
      lookup.cname,
    );
    if (verdict === 'inconclusive') {
      const timedOut = lookup.txt.kind === 'unreachable' && lookup.txt.timedOut;
      throw Object.assign(
        domainsError(
          timedOut ? 'dns_timeout' : 'dns_unavailable',
          `DNS did not answer the lookup of ${txtName} (asked ${this.dns.describeServers()}); nothing was changed, try again`,
        ),
        { headers: { 'Retry-After': '30' } },
      );
    }
    if (verdict === 'absent') {
      const found = records[0].found.length ? records[0].found.map((v) => JSON.stringify(v)).join(', ') : 'none';
      return {
        domain,
        verified: false,
        reason: `No TXT record "${row.token}" at ${txtName} (found: ${found}${records[0].error ? `, ${records[0].error}` : ''})`,
      };
    }
    try {
      await this.dataSource.transaction(async (m) => {
        const locked = await this.sso.lockConnection(m, workspaceId);
        if (!locked) throw notConfigured(workspaceId);
        await this.sso.markVerified(m, workspaceId, domain, this.clock.now());
        if (locked.enforce) await this.endSessionsAt(m, [domain], locked.enforcedBy);
        await this.audit.record(m, { workspaceId, action: 'sso.domain_verified', target: { type: 'sso_domain', id: domain, label: domain } });
      });
    } catch (err) {
      if (uniqueViolation(err) === 'UQ_sso_domains_verified') throw claimed(domain);
      throw err;
    }
    return { domain, verified: true };
  }

  /** SsoPasswordPolicy: password sign-in is closed to an enforced domain, but for the owner who enforced it. */
  async passwordSignIn(user: { id: string; email: string }, stage: 'before_second_factor'): Promise<void>;
  async passwordSignIn(user: { id: string; email: string }, stage: 'complete', manager: EntityManager): Promise<void>;
  async passwordSignIn(user: { id: string; email: string }, stage: 'complete' | 'before_second_factor', manager?: EntityManager): Promise<void> {
    const enforced = await this.enforcedAt(user.email, manager ?? this.dataSource.manager);
    if (!enforced) return;
    const { workspaceId } = enforced;
    if (await this.breaksGlass(enforced, user.id, manager ?? this.dataSource.manager)) {
      if (stage !== 'complete') return;
      const entry = {
        workspaceId,
        action: 'sso.break_glass_signin',
        actor: { type: 'user', id: user.id, label: user.email },
        target: { type: 'user', id: user.id, label: user.email },
      } as const;
      // In the sign-in's own transaction: the entry stands or falls with the session.
      await this.audit.record(manager!, entry);
      this.logger.warn(`break-glass password sign-in of ${user.id} past the enforced SSO of ${workspaceId}`);
      return;
    }
    throw this.ssoRequired(user.email, enforced.domain);
  }

  /** SsoPasswordPolicy: no account is registered with a password at an enforced domain (its provider makes them). */
  async passwordRegistration(email: string): Promise<void> {
    const enforced = await this.enforcedAt(email);
    if (enforced) throw this.ssoRequired(email, enforced.domain);
  }

  /** SsoPasswordPolicy: held by an enforced SSO, the break-glass owner aside. */
  async enforcedFor(user: { id: string; email: string }, manager?: EntityManager): Promise<boolean> {
    const enforced = await this.enforcedAt(user.email, manager);
    return enforced !== null && !(await this.breaksGlass(enforced, user.id, manager ?? this.dataSource.manager));
  }

  /**
   * OwnerLeaves: the break-glass owner demoted or removed (someone who left the company) is
   * held by the enforced SSO from now on, and the password sessions they signed in with past
   * it end with the change (every session of theirs: which of them came through the
   * provider is not recorded, and they sign in through it again). Audited as session.ended.
   */
  async ownerLeft(m: EntityManager, workspaceId: string, userId: string): Promise<void> {
    const connection = await this.sso.findConnection(m, workspaceId);
    if (!connection?.enforce || connection.enforcedBy !== userId) return;
    const user = await this.users.findById(userId, m);
    // Held by this workspace's enforcement only when their address is at one of its verified domains.
    if (!user || (await this.enforcedAt(user.email, m))?.workspaceId !== workspaceId) return;
    this.logger.warn(`${userId} is no longer an owner of ${workspaceId}: their break glass past its enforced SSO is gone, and so are their sessions`);
    await this.sessions.endOthers(m, userId, null);
  }

  /**
   * The break glass: the owner who turned enforcement on, while they still are an owner. Removed
   * or demoted (someone who left the company), they sign in through the provider as everyone
   * does, or not at all once it disabled them.
   */
  private async breaksGlass(enforced: { workspaceId: string; connection: SsoConnection }, userId: string, m: EntityManager): Promise<boolean> {
    return enforced.connection.enforcedBy === userId && (await this.sso.isActiveOwner(m, enforced.workspaceId, userId));
  }

  /** The workspace whose enforced SSO holds `email`'s domain, or null. */
  private async enforcedAt(
    email: string,
    m: EntityManager = this.dataSource.manager,
  ): Promise<{ domain: string; workspaceId: string; connection: SsoConnection } | null> {
    const domain = emailDomain(email);
    if (!domain) return null;
    const workspaceId = await this.sso.verifiedOwner(m, domain);
    if (!workspaceId) return null;
    const connection = await this.sso.findConnection(m, workspaceId);
    return connection?.enforce ? { domain, workspaceId, connection } : null;
  }

  private ssoRequired(email: string, domain: string) {
    const ssoUrl = `${this.config.apiBaseUrl}/auth/sso/start?email=${encodeURIComponent(email)}`;
    return ssoError('sso_required', `${domain} signs in through its single sign-on: continue at ssoUrl`, { ssoUrl });
  }

  /**
   * Enforcement has just begun for `domains` (turned on, or a domain verified while it was
   * on): every session of their accounts ends, but the break-glass owner's, so sign-ins made
   * with a password before (perhaps the leaked one that made the company enforce SSO) do
   * not outlive it; people sign in again through the provider. Each is audited as
   * session.ended, in the transaction that enforces.
   */
  private async endSessionsAt(m: EntityManager, domains: string[], keep: string | null): Promise<void> {
    for (const userId of await this.sso.usersAtDomains(m, domains)) {
      if (userId !== keep) await this.sessions.endOthers(m, userId, null);
    }
  }

  /** The client secret in plain text, for the provider's token endpoint. */
  openSecret(connection: SsoConnection): string {
    const key = this.keyring.key(connection.secretKeyId);
    const what = `The SSO client secret of ${connection.workspaceId}`;
    if (!key) throw new Error(`${what} is sealed under key ${connection.secretKeyId}, which is not in LEADS_ENCRYPTION_KEYS any more; save it again`);
    const plain = openEmail(key, { nonce: connection.secretNonce, ciphertext: connection.secretCiphertext }, clientSecretAad(connection.workspaceId));
    if (plain === null) throw new Error(`${what} does not open under key ${connection.secretKeyId}; save it again`);
    return plain;
  }

  private sealSecret(workspaceId: string, secret: string) {
    const { id, key } = this.keyring.current;
    return { keyId: id, ...sealEmail(key, secret, clientSecretAad(workspaceId)) };
  }

  private async refuseClaimed(workspaceId: string, domains: string[]): Promise<void> {
    for (const domain of domains) {
      const owner = await this.sso.verifiedOwner(this.dataSource.manager, domain);
      if (owner && owner !== workspaceId) throw claimed(domain);
    }
  }

  private normaliseDomains(raw: string[]): string[] {
    return [...new Set(raw.map((d, i) => this.normaliseDomain(d, `emailDomains[${i}]`)))].sort();
  }

  private normaliseDomain(raw: string, field: string): string {
    try {
      return normaliseDomain(raw, domainRules(this.config));
    } catch (err) {
      if (err instanceof InvalidDomainError) throw badRequest(err.message.replace(/^custom_domain:/, `${field}:`));
      throw err;
    }
  }
}

const notConfigured = (workspaceId: string) => ssoError('sso_not_configured', `Workspace ${workspaceId} has no single sign-on set up`);
const claimed = (domain: string) => ssoError('domain_claimed', `${domain} is already claimed by another workspace's single sign-on`);
