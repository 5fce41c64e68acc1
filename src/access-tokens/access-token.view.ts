import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import { type Scope, SCOPES } from '../shared/principal';
import type { AccessToken } from './access-token.entity';

export class AccessTokenView {
  @IdProperty('tok')
  id: string;
  @ApiProperty({ example: 'CI deploys' })
  name: string;
  @ApiProperty({ enum: SCOPES, isArray: true })
  scopes: Scope[];
  @ApiProperty({ example: 'sk_live_a1B2', description: 'The first characters of the token, to tell tokens apart' })
  prefix: string;
  @NullableStringProperty({ example: '2030-01-01T00:00:00.000Z' })
  expires_at: string | null;
  @NullableStringProperty({ description: 'The project the token is bound to; null for a workspace-wide token' })
  projectId: string | null;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
  @NullableStringProperty({ description: 'Last request made with the token, to the minute' })
  lastUsedAt: string | null;
}

export class CreatedAccessTokenView {
  @IdProperty('tok')
  id: string;
  @ApiProperty({ example: 'CI deploys' })
  name: string;
  @ApiProperty({ example: 'sk_live_...', description: 'The secret: shown in this response only, never again' })
  token: string;
  @ApiProperty({ enum: SCOPES, isArray: true })
  scopes: Scope[];
  @ApiProperty({ example: 'sk_live_a1B2' })
  prefix: string;
  @NullableStringProperty({ example: '2030-01-01T00:00:00.000Z' })
  expires_at: string | null;
  @NullableStringProperty()
  projectId: string | null;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
}

/** GET /v1/me: exactly the spec's token context. */
export class TokenContextView {
  @IdProperty('ws')
  workspaceId: string;
  @IdProperty('tok')
  tokenId: string;
  @ApiProperty({ enum: SCOPES, isArray: true, example: ['deploy'] })
  scopes: Scope[];
  @NullableStringProperty({ description: 'null when the token is not bound to one project' })
  projectId: string | null;
}

export function accessTokenView(token: AccessToken): AccessTokenView {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    prefix: token.prefix,
    expires_at: iso(token.expiresAt),
    projectId: token.projectId,
    createdAt: iso(token.createdAt),
    lastUsedAt: iso(token.lastUsedAt),
  };
}

export function createdAccessTokenView(token: AccessToken, secret: string): CreatedAccessTokenView {
  return {
    id: token.id,
    name: token.name,
    token: secret,
    scopes: token.scopes,
    prefix: token.prefix,
    expires_at: iso(token.expiresAt),
    projectId: token.projectId,
    createdAt: iso(token.createdAt),
  };
}
