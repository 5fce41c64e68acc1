import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';

import { AccessTokensModule } from '../access-tokens/access-tokens.module';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AccountRecoveryService } from './account-recovery.service';
import { AccountTokensRepository } from './account-tokens.repository';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AuthEpochRepository } from './auth-epoch.repository';
import { AuthEpoch } from './auth-epoch.service';
import { AuthThrottle } from './auth-throttle.service';
import { BearerStrategy } from './bearer.strategy';
import { CredentialCache } from './credential-cache.service';
import { jwtModuleOptions } from './jwt-options';
import { UsersMeController } from './me.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

@Module({
  imports: [JwtModule.registerAsync({ inject: [AppConfig], useFactory: jwtModuleOptions }), UsersModule, WorkspacesModule, AccessTokensModule],
  controllers: [AuthController, UsersMeController],
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
  ],
  exports: [BearerStrategy, CredentialCache, AccountRecoveryService],
})
export class AuthModule {}
