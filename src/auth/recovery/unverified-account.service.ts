import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { AccessTokensService } from '../../access-tokens/access-tokens.service';
import { AuditLogService } from '../../audit/audit-log.service';
import type { User } from '../../users/user.entity';
import { PasskeysRepository } from '../passkeys/passkeys.repository';
import { SessionsService } from '../sessions/sessions.service';
import { TwoFactorRepository } from '../two-factor/two-factor.repository';
import { AccountTokensRepository } from './account-tokens.repository';

/**
 * An account registered but never verified belongs to whoever proves the mailbox first:
 * a password reset link used (AccountRecoveryService.confirmReset) or a sign-in through
 * the workspace's identity provider (SsoLoginService). Whoever registered the address
 * before may not be that person (anyone can register anyone's address), so everything
 * that let them in goes with the proof, in the caller's transaction: every session (which
 * bumps the auth epoch, so their access JWTs stop at once) and every API token they made;
 * passkeys, which sign in without the password; TOTP and recovery codes, a second factor
 * the real owner cannot answer; and the mailed links not used yet, among them a change of
 * address to a mailbox of theirs, which would move the account away later. The password
 * is the caller's (a reset sets the new one, SSO one nobody knows). Members the registrant
 * added to the account's workspaces stay: they are people, listed to the new holder.
 */
@Injectable()
export class UnverifiedAccountTakeback {
  private readonly logger = new Logger(UnverifiedAccountTakeback.name);

  constructor(
    private readonly sessions: SessionsService,
    private readonly accessTokens: AccessTokensService,
    private readonly passkeys: PasskeysRepository,
    private readonly twoFactor: TwoFactorRepository,
    private readonly accountTokens: AccountTokensRepository,
    private readonly audit: AuditLogService,
  ) {}

  /** Call with the user row locked, before marking it verified; `how` names the proof, for the log. */
  async takeBack(m: EntityManager, user: User, now: Date, how: 'password reset' | 'single sign-on'): Promise<void> {
    await this.sessions.endOthers(m, user.id, null);
    // API tokens act without a session: the registrant may have made some (owner of the account's personal workspace).
    await this.accessTokens.revokeAllCreatedBy(m, user.id);
    for (const passkey of await this.passkeys.deleteAllOfUser(m, user.id)) {
      await this.audit.recordForUser(m, user.id, { action: 'passkey.deleted', target: { type: 'passkey', id: passkey.id, label: passkey.name } });
    }
    const totp = await this.twoFactor.findTotp(m, user.id);
    await this.twoFactor.deleteTotp(m, user.id);
    if (totp?.enabledAt) {
      await this.audit.recordForUser(m, user.id, {
        action: 'two_factor.disabled',
        target: { type: 'user', id: user.id, label: user.email },
        changes: ['totp'],
      });
    }
    await this.accountTokens.markUnusedUsed(m, user.id, 'verify_email', now);
    await this.accountTokens.markUnusedUsed(m, user.id, 'password_reset', now);
    this.logger.log(`${user.id}, registered but never verified, was proven by ${how}: its sessions, passkeys, TOTP and mailed links ended`);
  }
}
