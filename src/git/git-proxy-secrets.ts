import { Global, Injectable, Module } from '@nestjs/common';

import { ProxySecrets } from '../sites/proxy/proxy-secrets';
import { GitModule } from './git.module';
import { GitSettingsService } from './git-settings.service';

/** The sites' port for `Sign=NAME` proxy rules, answered from the project's build environment variables. */
@Injectable()
export class GitProxySecrets extends ProxySecrets {
  constructor(private readonly settings: GitSettingsService) {
    super();
  }

  value(projectId: string, name: string): Promise<string | null> {
    return this.settings.envValue(projectId, name);
  }
}

/**
 * Binds ProxySecrets for the site router's proxy (src/sites/proxy). Global, as GatesModule
 * is: sites/ sits below git/ in the layers and cannot import this module, and SitesModule is
 * imported from more than one place, so it stays a plain (non-dynamic) module.
 */
@Global()
@Module({
  imports: [GitModule],
  providers: [GitProxySecrets, { provide: ProxySecrets, useExisting: GitProxySecrets }],
  exports: [ProxySecrets],
})
export class GitProxySecretsModule {}
