import { ApiProperty, PickType } from '@nestjs/swagger';

import { NullableStringProperty } from '../../common/dto-fields';
import { DnsRecordView } from '../../projects/dto/project-views.dto';
import { DOMAIN_STATUSES, type DomainStatus } from '../../shared/custom-domain/domain-check';

/** Response shape of verify-domain, for the OpenAPI document; domain.view.ts builds it. */

/** A record of the project's DnsRecordView, as this check found it. */
export class RecordCheckView extends PickType(DnsRecordView, ['type', 'name']) {
  @ApiProperty({ description: 'The value the record must hold' })
  expected: string;
  @ApiProperty({ type: [String], description: 'What DNS returned' })
  found: string[];
  @ApiProperty()
  ok: boolean;
  @NullableStringProperty({ example: 'ESERVFAIL', description: 'Why nothing was found when DNS failed rather than answered' })
  error: string | null;
}

export class VerifyDomainView {
  @ApiProperty({ description: 'Whether this check found the TXT token' })
  verified: boolean;
  @NullableStringProperty({ example: 'www.example.com' })
  custom_domain: string | null;
  @ApiProperty({ enum: DOMAIN_STATUSES, nullable: true })
  domainStatus: DomainStatus | null;
  @NullableStringProperty({ example: '2030-01-01T00:00:00.000Z', description: 'The same instant as the project’s `domainVerifiedAt`' })
  domainVerifiedAt: string | null;
  @NullableStringProperty({ example: '2030-01-01T00:00:00.000Z', description: 'When DNS was last asked' })
  domainCheckedAt: string | null;
  @ApiProperty({ type: [RecordCheckView] })
  records: RecordCheckView[];
}
