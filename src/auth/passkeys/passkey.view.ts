import { ApiProperty } from '@nestjs/swagger';

import { IdProperty } from '../../common/dto-fields';
import { iso } from '../../common/time';
import type { Passkey } from './passkey.entities';

export class PasskeyView {
  @IdProperty('pk')
  id: string;
  @ApiProperty({ example: 'Work laptop' })
  name: string;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ type: String, nullable: true, example: '2025-01-02T00:00:00.000Z', description: 'The last sign-in or second factor it made; null if never' })
  lastUsedAt: string | null;
  @ApiProperty({ description: 'Whether the authenticator says the key is backed up (synced to other devices)' })
  backedUp: boolean;
  @ApiProperty({ enum: ['singleDevice', 'multiDevice'], description: '`multiDevice`: a synced passkey that can live on several devices' })
  deviceType: 'singleDevice' | 'multiDevice';
}

export class PasskeyListView {
  @ApiProperty({ type: [PasskeyView] })
  data: PasskeyView[];
}

export function passkeyView(p: Passkey): PasskeyView {
  return { id: p.id, name: p.name, createdAt: iso(p.createdAt), lastUsedAt: iso(p.lastUsedAt), backedUp: p.backedUp, deviceType: p.deviceType };
}
