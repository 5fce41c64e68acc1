import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { IdProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import { challengeName } from '../shared/custom-domain/domain-check';
import { SSO_ROLES, type SsoConnection, type SsoDomain, type SsoRole } from './sso.entities';

export class SsoTxtRecordView {
  @ApiProperty({ example: '_statichost-challenge.example.com' })
  name: string;
  @ApiProperty({ example: '4f1c2a9e8b7d6c5e4f3a2b1c0d9e8f7a' })
  value: string;
}

export class SsoDomainView {
  @ApiProperty({ example: 'example.com' })
  domain: string;
  @ApiProperty({ description: 'The TXT record was seen: sign-ins of this domain go through SSO' })
  verified: boolean;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  verifiedAt: string | null;
  @ApiProperty({ type: SsoTxtRecordView, description: 'The TXT record that proves the workspace controls the domain' })
  record: SsoTxtRecordView;
}

export class SsoView {
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ example: 'https://login.example.com' })
  issuer: string;
  @ApiProperty({ example: 'statichost' })
  clientId: string;
  @ApiProperty({ enum: [true], description: 'The secret is stored (encrypted); it is never returned' })
  clientSecretSet: true;
  @ApiProperty({ example: 'https://api.example.com/auth/sso/callback', description: 'Register this redirect URI at the provider' })
  redirectUri: string;
  @ApiProperty({ type: [SsoDomainView] })
  emailDomains: SsoDomainView[];
  @ApiProperty({ enum: SSO_ROLES })
  defaultRole: SsoRole;
  @ApiProperty()
  enforce: boolean;
  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class SsoDomainVerificationView {
  @ApiProperty({ example: 'example.com' })
  domain: string;
  @ApiProperty()
  verified: boolean;
  @ApiPropertyOptional({ example: 'No TXT record "4f1c…" at _statichost-challenge.example.com (found: none)', description: 'Why it is not verified' })
  reason?: string;
}

export function ssoDomainView(d: SsoDomain): SsoDomainView {
  return {
    domain: d.domain,
    verified: !!d.verifiedAt,
    verifiedAt: d.verifiedAt ? iso(d.verifiedAt) : null,
    record: { name: challengeName(d.domain), value: d.token },
  };
}

export function ssoView(c: SsoConnection, domains: SsoDomain[], redirectUri: string): SsoView {
  return {
    workspaceId: c.workspaceId,
    issuer: c.issuer,
    clientId: c.clientId,
    clientSecretSet: true,
    redirectUri,
    emailDomains: domains.map(ssoDomainView),
    defaultRole: c.defaultRole,
    enforce: c.enforce,
    updatedAt: iso(c.updatedAt),
  };
}
