import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../../common/dto-fields';
import { PageMetaView } from '../../deployments/dto/deployment-views.dto';
import { BUILD_STATUSES, BUILD_TRIGGERS, type BuildStatus, type BuildTrigger } from '../build.entity';

/** Response shapes of the build routes, for the OpenAPI document; build.view.ts builds the objects. */

export class DetectedBuildView {
  @NullableStringProperty({ example: 'vite', description: 'The framework found in the repository; null: none recognised' })
  framework: string | null;
  @ApiProperty({ nullable: true, enum: ['npm', 'pnpm', 'yarn'], description: 'From the lock file; null: no package.json' })
  packageManager: 'npm' | 'pnpm' | 'yarn' | null;
  @NullableStringProperty({ example: 'npm ci' })
  installCommand: string | null;
  @NullableStringProperty({ example: 'npm run build' })
  buildCommand: string | null;
  @ApiProperty({ example: 'dist' })
  outputDirectory: string;
}

export class BuildView {
  @IdProperty('bld')
  id: string;
  @IdProperty('proj')
  projectId: string;
  @ApiProperty({ enum: BUILD_STATUSES })
  status: BuildStatus;
  @ApiProperty({ enum: BUILD_TRIGGERS })
  trigger: BuildTrigger;
  @ApiProperty({ example: 'main', description: 'What was asked for: a branch, a tag or a commit' })
  ref: string;
  @NullableStringProperty({ example: 'main', description: 'The branch built; null for a tag or a bare commit' })
  branch: string | null;
  @NullableStringProperty({ example: '3f786850e387550fdab836ed7e6dc881de23001b', description: 'Known once the clone resolved the ref' })
  commitSha: string | null;
  @NullableStringProperty({ example: 'Fix the footer' })
  commitMessage: string | null;
  @ApiProperty({ nullable: true, type: 'integer', example: null, description: 'The pull request built; null for other builds' })
  pullRequest: number | null;
  @ApiProperty({
    example: false,
    description:
      'Built as code from outside the repository (a fork’s pull request, or a bare commit no build of the repository had checked out): without the project’s environment variables',
  })
  fork: boolean;
  @NullableStringProperty({ example: 'dep_0123456789abcdefghijklmn', description: 'The deployment the build made, once ready' })
  deploymentId: string | null;
  @NullableStringProperty({
    example: 'https://my-site.example.app',
    description:
      'Where the output is served once ready: the site for the production branch, the branch’s or pull request’s preview address (docs/previews.md) otherwise',
  })
  url: string | null;
  // Inline rather than a $ref: a $ref beside `nullable` still refuses null in OpenAPI 3.0.
  @ApiProperty({
    type: 'object',
    nullable: true,
    description: 'What the build found in the repository and ran; null until detected',
    properties: {
      framework: { type: 'string', nullable: true, example: 'vite' },
      packageManager: { type: 'string', nullable: true, enum: ['npm', 'pnpm', 'yarn'] },
      installCommand: { type: 'string', nullable: true, example: 'npm ci' },
      buildCommand: { type: 'string', nullable: true, example: 'npm run build' },
      outputDirectory: { type: 'string', example: 'dist' },
    },
    required: ['framework', 'packageManager', 'installCommand', 'buildCommand', 'outputDirectory'],
  })
  detected: DetectedBuildView | null;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  createdAt: string;
  @NullableStringProperty({ example: '2030-01-01T00:00:01.000Z' })
  startedAt: string | null;
  @NullableStringProperty({ example: '2030-01-01T00:00:31.000Z' })
  finishedAt: string | null;
  @ApiProperty({ nullable: true, type: 'integer', example: 30000, description: 'From start to end, once finished' })
  durationMs: number | null;
  @NullableStringProperty({ example: 'the build command exited with code 1', description: 'Why the build failed, timed out or was canceled' })
  error: string | null;
  @ApiProperty({
    nullable: true,
    enum: ['pending', 'posted', 'failed'],
    description: 'Whether the forge was told (commit status, pull request comment); null when there is nobody to tell (no access token)',
  })
  forgeStatus: 'pending' | 'posted' | 'failed' | null;
  @NullableStringProperty({ example: 'GitHub answered 401 Bad credentials', description: 'Why the forge could not be told, when forgeStatus is failed' })
  forgeError: string | null;
}

export class BuildListView {
  @ApiProperty({ type: [BuildView] })
  data: BuildView[];
  @ApiProperty({ type: PageMetaView })
  meta: PageMetaView;
}
