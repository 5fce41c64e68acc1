import { Module } from '@nestjs/common';
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
import { PasskeysController } from './passkeys/passkeys.controller';
import { PasskeysRepository } from './passkeys/passkeys.repository';
import { PasskeysService } from './passkeys/passkeys.service';
import { AccountRecoveryService } from './recovery/account-recovery.service';
import { AccountTokensRepository } from './recovery/account-tokens.repository';
import { AuthEpochRepository } from './sessions/auth-epoch.repository';
import { AuthEpoch } from './sessions/auth-epoch.service';
import { jwtModuleOptions } from './sessions/jwt-options';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { PASSKEY_VERIFIER } from './two-factor/passkey-verifier';

@Module({
  imports: [JwtModule.registerAsync({ inject: [AppConfig], useFactory: jwtModuleOptions }), UsersModule, WorkspacesModule, AccessTokensModule],
  controllers: [AuthController, UsersMeController, SessionsController, PasskeysController],
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
    PasskeysService,
    PasskeysRepository,
    { provide: PASSKEY_VERIFIER, useExisting: PasskeysService },
  ],
  exports: [BearerStrategy, CredentialCache, AccountRecoveryService, SessionsService],
})
export class AuthModule {}
