import { Global, Injectable, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { GitModule } from '../git/git.module';
import { GitSettingsService } from '../git/git-settings.service';
import { ProxySecrets, type SigningDeployment } from '../sites/proxy/proxy-secrets';
import { Build } from './build.entity';
import { BuildsRepository } from './builds.repository';

/** The sites' port for `Sign=NAME` proxy rules: the project's variables for the deployment's target, never for a fork's code. */
@Injectable()
export class BuildProxySecrets extends ProxySecrets {
  private readonly logger = new Logger(BuildProxySecrets.name);

  constructor(
    private readonly settings: GitSettingsService,
    private readonly builds: BuildsRepository,
  ) {
    super();
  }

  async value(name: string, served: SigningDeployment): Promise<string | null> {
    if (await this.builds.builtFromFork(served.deploymentId)) {
      this.logger.warn(`deployment ${served.deploymentId} was built from a fork's pull request: its proxy rules do not sign with ${name}`);
      return null;
    }
    return this.settings.envValue(served.projectId, name, served.preview ? 'preview' : 'production');
  }
}

/**
 * Binds ProxySecrets for the site router's proxy (src/sites/proxy). Global, as GatesModule
 * is: sites/ sits below builds/ in the layers and cannot import this module, and SitesModule
 * is imported from more than one place, so it stays a plain (non-dynamic) module.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Build]), GitModule],
  providers: [BuildsRepository, BuildProxySecrets, { provide: ProxySecrets, useExisting: BuildProxySecrets }],
  exports: [ProxySecrets],
})
export class BuildProxySecretsModule {}
