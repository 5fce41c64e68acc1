import { Global, Module } from '@nestjs/common';

import { AuthModule } from '../auth/auth.module';
import { SsoPasswordPolicy } from '../auth/sso-password-policy';
import { DomainDns } from '../domains/domain-dns.service';
import { LeadsModule } from '../leads/leads.module';
import { UsersModule } from '../users/users.module';
import { OwnerLeaves } from '../workspaces/owner-leaves';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { OidcConfigurations } from './oidc-configurations.service';
import { SsoController, SsoSignInController } from './sso.controller';
import { SsoRepository } from './sso.repository';
import { SsoService } from './sso.service';
import { SsoLoginService } from './sso-login.service';

/**
 * Single sign-on over OpenID Connect (issue 32). Global for one reason: it binds the
 * SsoPasswordPolicy that AuthService.login asks, and auth sits below sso in the layers
 * (sso starts auth's sessions), so AuthModule cannot import this module; and likewise the
 * OwnerLeaves that member changes call (workspaces sits below sso too).
 */
@Global()
@Module({
  // The same AuthModule.forRoot as the app's (same metadata, so one instance): a plain
  // AuthModule would be a second instance without the TOTP secrets' sealer.
  imports: [AuthModule.forRoot(LeadsModule), LeadsModule, UsersModule, WorkspacesModule],
  controllers: [SsoController, SsoSignInController],
  providers: [
    SsoRepository,
    SsoService,
    SsoLoginService,
    OidcConfigurations,
    DomainDns,
    { provide: SsoPasswordPolicy, useExisting: SsoService },
    { provide: OwnerLeaves, useExisting: SsoService },
  ],
  exports: [SsoPasswordPolicy, OwnerLeaves],
})
export class SsoModule {}
