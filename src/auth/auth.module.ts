import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';

import { AccessTokensModule } from '../access-tokens/access-tokens.module';
import { RecentSignIn } from '../access-tokens/recent-sign-in';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AuthThrottle } from './auth-throttle.service';
import { BearerStrategy } from './guard/bearer.strategy';
import { CredentialCache } from './guard/credential-cache.service';
import { UsersMeController } from './me.controller';
import { PasskeysController } from './passkeys/passkeys.controller';
import { PasskeysRepository } from './passkeys/passkeys.repository';
import { PasskeysService } from './passkeys/passkeys.service';
import { AccountRecoveryService } from './recovery/account-recovery.service';
import { AccountTokensRepository } from './recovery/account-tokens.repository';
import { UnverifiedAccountTakeback } from './recovery/unverified-account.service';
import { AuthEpochRepository } from './sessions/auth-epoch.repository';
import { AuthEpoch } from './sessions/auth-epoch.service';
import { jwtModuleOptions } from './sessions/jwt-options';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { SessionsPurge } from './sessions/sessions-purge.job';
import { PASSKEY_VERIFIER } from './two-factor/passkey-verifier';
import { TwoFactorController } from './two-factor/two-factor.controller';
import { TwoFactorRepository } from './two-factor/two-factor.repository';
import { TwoFactorService } from './two-factor/two-factor.service';

@Module({
  imports: [JwtModule.registerAsync({ inject: [AppConfig], useFactory: jwtModuleOptions }), UsersModule, WorkspacesModule, AccessTokensModule],
  controllers: [AuthController, UsersMeController, SessionsController, PasskeysController, TwoFactorController],
  providers: [
    AuthService,
    SessionsService,
    AuthEpoch,
    AuthEpochRepository,
    CredentialCache,
    BearerStrategy,
    AccountRecoveryService,
    UnverifiedAccountTakeback,
    AuthThrottle,
    SessionsRepository,
    SessionsPurge,
    AccountTokensRepository,
    PasskeysService,
    PasskeysRepository,
    { provide: PASSKEY_VERIFIER, useExisting: PasskeysService },
    TwoFactorService,
    TwoFactorRepository,
    { provide: RecentSignIn, useExisting: SessionsService },
  ],
  exports: [BearerStrategy, CredentialCache, AccountRecoveryService, SessionsService, UnverifiedAccountTakeback, RecentSignIn],
})
export class AuthModule {
  /**
   * `sealers`: the module binding SECRET_SEALER (LeadsModule, whose keyring seals TOTP
   * secrets); it sits above auth, so the composition root hands it in.
   */
  static forRoot(sealers: Type<unknown>): DynamicModule {
    // One object per `sealers`: Nest tells dynamic modules apart by reference, and a second
    // object would be a second AuthModule (its controllers mounted twice) for SsoModule.
    let root = AuthModule.roots.get(sealers);
    // Global for the RecentSignIn that AccessTokensService asks: access-tokens sits below auth.
    if (!root) AuthModule.roots.set(sealers, (root = { module: AuthModule, imports: [sealers], global: true }));
    return root;
  }

  private static readonly roots = new Map<Type<unknown>, DynamicModule>();
}
