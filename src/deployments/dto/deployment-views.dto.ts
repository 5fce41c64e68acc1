import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../../common/dto-fields';
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from '../deployment.entity';

/**
 * Response shapes of the deployment routes, for the OpenAPI document (and so the
 * SDK's generated types); deployment.view.ts builds the objects.
 */

export class LazyDeploymentView {
  @IdProperty('dep')
  id: string;
  @ApiProperty({
    example: 'https://my-site.example.app',
    description: 'Address of the project’s site; in the answer of a deploy with `publish: false`, the deployment’s preview address',
  })
  url: string;
  @ApiProperty({ type: 'integer', example: 1 })
  version: number;
  @ApiProperty({ type: 'integer', example: 5120, description: 'Total size of the files, in bytes' })
  size_bytes: number;
  @NullableStringProperty({ example: '2030-01-08T00:00:00.000Z', description: 'null for ttl `forever`' })
  expires_at: string | null;
}

export class RuleWarningView {
  @ApiProperty({ enum: ['_redirects', '_headers'], example: '_redirects' })
  file: '_redirects' | '_headers';
  @ApiProperty({ type: 'integer', example: 3, description: 'Line of the file, from 1 (0: the file as a whole)' })
  line: number;
  @ApiProperty({
    example: 'Country= never matches: this instance has no GeoIP database (GEOIP_DATABASE)',
    description: 'Why the line deployed but will never apply',
  })
  message: string;
}

export class DeploymentView extends LazyDeploymentView {
  @IdProperty('proj')
  projectId: string;
  @ApiProperty({ enum: DEPLOYMENT_STATUSES })
  status: DeploymentStatus;
  @ApiProperty({
    example: 'https://my-site--12.example.app',
    description:
      'This deployment’s own address, whatever is live: `<slug>--<version>.<SITES_DOMAIN>`, or `<slug prefix>--<id without dep_>` when that would exceed a 63-character DNS label. ' +
      'Gated like the site, `X-Robots-Tag: noindex`, 410 once expired',
  })
  previewUrl: string;
  @ApiProperty({ type: 'integer', example: 12 })
  fileCount: number;
  @ApiProperty({ example: '7d' })
  ttl: string;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ example: 'tok_0123456789abcdefghijklmn', description: 'The user (`usr_`) or token (`tok_`) that deployed it' })
  createdBy: string;
  @ApiProperty({
    type: [RuleWarningView],
    description:
      'Lines of `_redirects` and `_headers` that deployed but will never apply (a `Country=` rule on an instance without a GeoIP database, a rule shadowed by an earlier one with the same source and conditions); `[]` when none',
  })
  warnings: RuleWarningView[];
}

export class DeploymentFileView {
  @ApiProperty({ example: 'index.html' })
  path: string;
  @ApiProperty({ type: 'integer', example: 5120 })
  size: number;
  @ApiProperty({ example: 'text/html; charset=utf-8' })
  contentType: string;
  @ApiProperty({ example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' })
  sha256: string;
}

export class DeploymentDetailView extends DeploymentView {
  @ApiProperty({ type: [DeploymentFileView] })
  files: DeploymentFileView[];
}

export class PageMetaView {
  @ApiProperty({ type: 'integer', example: 42 })
  total: number;
  @ApiProperty({ type: 'integer', example: 1 })
  page: number;
  @ApiProperty({ type: 'integer', example: 20 })
  limit: number;
  @ApiProperty({ type: 'integer', example: 3 })
  totalPages: number;
}

export class DeploymentListView {
  @ApiProperty({ type: [DeploymentView] })
  data: DeploymentView[];
  @ApiProperty({ type: PageMetaView })
  meta: PageMetaView;
}
