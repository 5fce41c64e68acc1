import { Global, Injectable, Module } from '@nestjs/common';

import { SecondFactorCheck } from '../../access/second-factor-check';
import { PasskeysRepository } from '../passkeys/passkeys.repository';
import { twoFactorRequired } from './two-factor.errors';
import { TwoFactorRepository } from './two-factor.repository';

/** A confirmed TOTP or a passkey, as TwoFactorService.hasSecondFactor and the guard count them. */
@Injectable()
export class StoredSecondFactorCheck extends SecondFactorCheck {
  constructor(
    private readonly totp: TwoFactorRepository,
    private readonly passkeys: PasskeysRepository,
  ) {
    super();
  }

  async require(workspaceId: string, userId: string): Promise<void> {
    if ((await this.totp.totpEnabled(userId)) || (await this.passkeys.countForUser(userId)) > 0) return;
    throw twoFactorRequired(workspaceId);
  }
}

/**
 * Binds SecondFactorCheck for the features below auth (billing). Global, as
 * BuildProxySecretsModule is: they cannot import auth/ Its own repositories (two
 * stateless query holders), so it needs no AuthModule, which the root builds with forRoot.
 */
@Global()
@Module({
  providers: [TwoFactorRepository, PasskeysRepository, StoredSecondFactorCheck, { provide: SecondFactorCheck, useExisting: StoredSecondFactorCheck }],
  exports: [SecondFactorCheck],
})
export class SecondFactorCheckModule {}
