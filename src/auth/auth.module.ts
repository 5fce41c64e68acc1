import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';

import { AccessTokensModule } from '../access-tokens/access-tokens.module';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AuthThrottle } from './auth-throttle.service';
import { BearerStrategy } from './guard/bearer.strategy';
import { CredentialCache } from './guard/credential-cache.service';
import { UsersMeController } from './me.controller';
import { AccountRecoveryService } from './recovery/account-recovery.service';
import { AccountTokensRepository } from './recovery/account-tokens.repository';
import { AuthEpochRepository } from './sessions/auth-epoch.repository';
import { AuthEpoch } from './sessions/auth-epoch.service';
import { jwtModuleOptions } from './sessions/jwt-options';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { TwoFactorController } from './two-factor/two-factor.controller';
import { TwoFactorRepository } from './two-factor/two-factor.repository';
import { TwoFactorService } from './two-factor/two-factor.service';

@Module({
  imports: [JwtModule.registerAsync({ inject: [AppConfig], useFactory: jwtModuleOptions }), UsersModule, WorkspacesModule, AccessTokensModule],
  controllers: [AuthController, UsersMeController, TwoFactorController],
  providers: [
    AuthService,
    SessionsService,
    AuthEpoch,
    AuthEpochRepository,
    CredentialCache,
    BearerStrategy,
    AccountRecoveryService,
    AuthThrottle,
    SessionsRepository,
    AccountTokensRepository,
    TwoFactorService,
    TwoFactorRepository,
  ],
  exports: [BearerStrategy, CredentialCache, AccountRecoveryService],
})
export class AuthModule {
  /**
   * `sealers`: the module binding SECRET_SEALER (LeadsModule, whose keyring seals TOTP
   * secrets); it sits above auth, so the composition root hands it in.
   */
  static forRoot(sealers: Type<unknown>): DynamicModule {
    return { module: AuthModule, imports: [sealers] };
  }
}
