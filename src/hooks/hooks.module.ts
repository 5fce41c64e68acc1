import { Module } from '@nestjs/common';

import { BuildsModule } from '../builds/builds.module';
import { GitModule } from '../git/git.module';
import { PreviewsModule } from '../previews/previews.module';
import { GitDeliveriesRepository } from './git-deliveries.repository';
import { GitDeliveriesPurge } from './git-deliveries-purge.service';
import { HooksController } from './hooks.controller';
import { HooksService } from './hooks.service';

/**
 * Forge webhooks (issue 29, docs/forges.md): POST /hooks/git/:projectId checks a
 * delivery against the project's webhook secret and starts a build or removes a preview
 * alias. Delivery ids are kept 30 days so a redelivery starts nothing.
 */
@Module({
  imports: [GitModule, BuildsModule, PreviewsModule],
  controllers: [HooksController],
  providers: [HooksService, GitDeliveriesRepository, GitDeliveriesPurge],
})
export class HooksModule {}
