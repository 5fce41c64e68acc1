import { Injectable } from '@nestjs/common';
import { type EntityManager, In, IsNull, LessThan, Not } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { SsoConnection, SsoDomain, SsoLogin } from './sso.entities';
import { emailDomain } from './sso-rules';

const sqlConnection = (workspaceId: string): SsoConnection =>
  Object.assign(new SsoConnection(), {
    workspaceId,
    issuer: 'https://idp.example.test',
    clientId: 'fixture',
    secretKeyId: 'k1',
    secretNonce: Buffer.alloc(12),
    secretCiphertext: Buffer.alloc(16),
    defaultRole: 'viewer',
    enforce: false,
    enforcedBy: null,
  });

/** Every query on sso_connections, sso_domains and sso_logins. */
@Injectable()
export class SsoRepository {
  /** Whether `userId` is an active owner of the workspace: who may break the glass of its enforced SSO. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, f.userId] })
  async isActiveOwner(manager: EntityManager, workspaceId: string, userId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 AND status = 'active' AND role = 'owner'`,
      [workspaceId, userId],
    );
    return rows.length > 0;
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  findConnection(manager: EntityManager, workspaceId: string): Promise<SsoConnection | null> {
    return manager.findOneBy(SsoConnection, { workspaceId });
  }

  /** The connection, locked for the caller's transaction (two PUTs, or a PUT and a verify, in turn). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  lockConnection(manager: EntityManager, workspaceId: string): Promise<SsoConnection | null> {
    return manager.findOne(SsoConnection, { where: { workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, sqlConnection(f.workspaceId)] })
  async saveConnection(manager: EntityManager, row: SsoConnection): Promise<SsoConnection> {
    return manager.save(SsoConnection, row);
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  async deleteConnection(manager: EntityManager, workspaceId: string): Promise<boolean> {
    const deleted = await manager.delete(SsoConnection, { workspaceId });
    return !!deleted.affected;
  }

  /** The workspace's claimed domains, alphabetical. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  domainsOf(manager: EntityManager, workspaceId: string): Promise<SsoDomain[]> {
    return manager.find(SsoDomain, { where: { workspaceId }, order: { domain: 'ASC' } });
  }

  /** Keeps exactly `domains` for the workspace: the others go, the new ones come with their token; the kept ones keep theirs. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId, [{ domain: 'corp.example', token: 'f'.repeat(32) }]] })
  async replaceDomains(manager: EntityManager, workspaceId: string, domains: { domain: string; token: string }[]): Promise<void> {
    await manager.delete(SsoDomain, { workspaceId, domain: Not(In(domains.length ? domains.map((d) => d.domain) : [''])) });
    if (domains.length === 0) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(SsoDomain)
      .values(domains.map((d) => ({ workspaceId, domain: d.domain, token: d.token, verifiedAt: null })))
      .orIgnore()
      .execute();
  }

  /** Fails with UQ_sso_domains_verified when another workspace verified the domain first. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId, 'corp.example', new Date(0)] })
  async markVerified(manager: EntityManager, workspaceId: string, domain: string, at: Date): Promise<void> {
    await manager.update(SsoDomain, { workspaceId, domain, verifiedAt: IsNull() }, { verifiedAt: at });
  }

  /** The workspace that verified `domain`, if any. */
  @GenerateSql({ params: (f) => [f.manager, 'corp.example'] })
  async verifiedOwner(manager: EntityManager, domain: string): Promise<string | null> {
    const row = await manager.findOne(SsoDomain, { where: { domain, verifiedAt: Not(IsNull()) }, select: { workspaceId: true } });
    return row?.workspaceId ?? null;
  }

  /**
   * The accounts whose email is at one of `domains` (ASCII, as SSO domains are stored).
   * Emails are stored as typed (lowercased, NFC), so a domain may be spelled in Unicode
   * (`bücher.example`, a full-width or ideographic dot): those few, any address whose
   * domain is not plain ASCII, are read too and matched here as sign-in matches them
   * (emailDomain), so the sweep and the password check never disagree.
   */
  @GenerateSql({ params: (f) => [f.manager, ['example.com']] })
  async usersAtDomains(manager: EntityManager, domains: string[]): Promise<string[]> {
    if (domains.length === 0) return [];
    const rows: { id: string; email: string }[] = await manager.query(
      `SELECT id, email FROM users
       WHERE substring(email from '@([^@]*)$') = ANY($1::text[]) OR substring(email from '@([^@]*)$') ~ '[^\\x01-\\x7f]|\\.$'
       ORDER BY id`,
      [domains],
    );
    return rows.filter((r) => domains.includes(emailDomain(r.email) ?? '')).map((r) => r.id);
  }

  @GenerateSql({
    params: (f) => [
      f.manager,
      { stateHash: 'f'.repeat(64), workspaceId: f.workspaceId, codeVerifier: 'v', nonce: 'n', browserHash: 'e'.repeat(64), expiresAt: new Date(0) },
    ],
  })
  async insertLogin(manager: EntityManager, row: SsoLogin): Promise<void> {
    await manager.insert(SsoLogin, row);
  }

  /** Takes the sign-in under way with this state: deleted in the same statement, so a state is used once even by two callbacks at once. */
  @GenerateSql({ params: (f) => [f.manager, 'f'.repeat(64)] })
  async takeLogin(manager: EntityManager, stateHash: string): Promise<SsoLogin | null> {
    const rows = (await manager.query(
      `DELETE FROM sso_logins WHERE state_hash = $1
       RETURNING workspace_id AS "workspaceId", code_verifier AS "codeVerifier", nonce, browser_hash AS "browserHash", expires_at AS "expiresAt"`,
      [stateHash],
    )) as [SsoLogin[], number];
    const [row] = rows[0];
    return row ? { ...row, stateHash } : null;
  }

  /** Sign-ins abandoned at the provider. */
  @GenerateSql({ params: (f) => [f.manager, new Date(0)] })
  async purgeLogins(manager: EntityManager, before: Date): Promise<void> {
    await manager.delete(SsoLogin, { expiresAt: LessThan(before) });
  }
}
