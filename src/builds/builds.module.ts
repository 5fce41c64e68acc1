import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { DeploymentsModule } from '../deployments/deployments.module';
import { GitModule } from '../git/git.module';
import { GitSettingsService } from '../git/git-settings.service';
import { PreviewsModule } from '../previews/previews.module';
import { ProjectsModule } from '../projects/projects.module';
import { QuotasModule } from '../quotas/quotas.module';
import { Build } from './build.entity';
import { BuildEvents } from './build-events';
import { BuildsController } from './builds.controller';
import { BuildsRepository } from './builds.repository';
import { BuildsService } from './builds.service';
import { BuildFeedbackRepository } from './feedback/build-feedback.repository';
import { ForgeFeedback } from './feedback/forge-feedback';
import { BuildLogRepository } from './logs/build-log.repository';
import { BuildLogChunk } from './logs/build-log-chunk.entity';
import { BuildLogsService } from './logs/build-logs.service';
import { BuildPipeline } from './pipeline/build-pipeline';
import { BuildsPipelineModule } from './pipeline/builds-pipeline.module';
import { BuildFeedback, BuildInputsSource, PipelinePort, RunnerSource } from './ports';
import { BuildQueue } from './queue/build-queue';
import { BuildSweeper } from './queue/build-sweeper.service';
import { Builder } from './queue/builder.service';
import { SelectedRunner } from './runner-source';

@Module({
  imports: [TypeOrmModule.forFeature([Build, BuildLogChunk]), ProjectsModule, DeploymentsModule, QuotasModule, GitModule, PreviewsModule, BuildsPipelineModule],
  controllers: [BuildsController],
  providers: [
    BuildsService,
    BuildsRepository,
    BuildLogRepository,
    BuildLogsService,
    BuildQueue,
    Builder,
    BuildSweeper,
    BuildEvents,
    { provide: BuildInputsSource, useExisting: GitSettingsService },
    { provide: RunnerSource, useClass: SelectedRunner },
    { provide: PipelinePort, useExisting: BuildPipeline },
    ForgeFeedback,
    BuildFeedbackRepository,
    { provide: BuildFeedback, useExisting: ForgeFeedback },
  ],
  exports: [BuildsService, Builder, BuildSweeper],
})
export class BuildsModule {}
