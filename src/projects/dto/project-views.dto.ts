import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../../common/dto-fields';
import { DOMAIN_STATUSES, type DomainStatus } from '../../shared/custom-domain/domain-check';
import { GATE_TYPES, type GateType, PROJECT_TYPES, type ProjectType } from '../project.entity';

/**
 * Response shapes of the project routes, for the OpenAPI document (and so the SDK's
 * generated types); project.view.ts builds the objects.
 */

export class DnsRecordView {
  @ApiProperty({ enum: ['TXT', 'CNAME'] })
  type: 'TXT' | 'CNAME';
  @ApiProperty({ example: '_statichost-challenge.www.example.com' })
  name: string;
  @ApiProperty({ example: 'statichost-verify=0123456789abcdef' })
  value: string;
}

/** The create answer: exactly the spec's fields. */
export class ProjectCreatedView {
  @IdProperty('proj')
  id: string;
  @ApiProperty({ example: 'My site' })
  name: string;
  @ApiProperty({ example: 'my-site' })
  slug: string;
  @ApiProperty({ enum: PROJECT_TYPES })
  type: ProjectType;
  @ApiProperty({ example: '7d', description: 'Time to live of a deployment that names none' })
  default_ttl: string;
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  createdAt: string;
}

export class ProjectView extends ProjectCreatedView {
  @ApiProperty({ enum: GATE_TYPES })
  gate_type: GateType;
  @NullableStringProperty({ example: 'www.example.com' })
  custom_domain: string | null;
  @ApiProperty({ enum: DOMAIN_STATUSES, nullable: true, description: 'null while no custom domain is attached' })
  domainStatus: DomainStatus | null;
  @NullableStringProperty({ example: '2030-01-01T00:00:00.000Z', description: 'Start of the current verified run; null until verified' })
  domainVerifiedAt: string | null;
  @ApiProperty({
    type: [DnsRecordView],
    nullable: true,
    description: 'The DNS records to create for the custom domain (they stay listed after verification: the TXT one is re-checked); null without a domain',
  })
  domainRecords: DnsRecordView[] | null;
  @NullableStringProperty({ example: 'dep_0123456789abcdefghijklmn', description: 'The deployment the site serves; null before the first' })
  liveDeploymentId: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 3, description: 'The live deployment’s version; null before the first' })
  liveVersion: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 48213, description: 'The live deployment’s total size in bytes; null before the first' })
  liveSizeBytes: number | null;
  @NullableStringProperty({
    example: '2030-01-01T00:00:00.000Z',
    description: 'When the live deployment was made (its age in the dashboard); null before the first',
  })
  liveCreatedAt: string | null;
  @ApiProperty({ example: 'https://my-site.example.app' })
  url: string;
  @ApiProperty({ example: '2030-01-01T00:00:00.000Z' })
  updatedAt: string;
}
