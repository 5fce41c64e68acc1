import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../../common/dto-fields';
import { PageMetaView } from '../../deployments/dto/deployment-views.dto';
import { ALIAS_KINDS, type AliasKind } from '../preview-alias.entity';

/** Response shapes of the previews route, for the OpenAPI document; preview.view.ts builds the objects. */

export class PreviewView {
  @ApiProperty({ example: 'feature-login--my-site', description: 'The DNS label under the sites domain (docs/previews.md)' })
  alias: string;
  @ApiProperty({ enum: ALIAS_KINDS })
  kind: AliasKind;
  @NullableStringProperty({ example: 'feature/login', description: 'The branch built: the alias’s own, or the pull request’s head branch' })
  branch: string | null;
  @ApiProperty({ nullable: true, type: 'integer', example: null, description: 'The pull request (GitLab: merge request) number; null for a branch' })
  pullRequest: number | null;
  @ApiProperty({ example: 'https://feature-login--my-site.example.app' })
  url: string;
  @IdProperty('dep')
  deploymentId: string;
  @NullableStringProperty({ example: 'bld_0123456789abcdefghijklmn', description: 'The build that made the deployment' })
  buildId: string | null;
  @NullableStringProperty({ example: '3f786850e387550fdab836ed7e6dc881de23001b' })
  commitSha: string | null;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z', description: 'When the alias last moved to a new build' })
  updatedAt: string;
}

export class PreviewListView {
  @ApiProperty({ type: [PreviewView] })
  data: PreviewView[];
  @ApiProperty({ type: PageMetaView })
  meta: PageMetaView;
}
