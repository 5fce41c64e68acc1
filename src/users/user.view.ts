import { ApiProperty } from '@nestjs/swagger';

import { IdProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import type { User } from './user.entity';

export class UserView {
  @IdProperty('usr')
  id: string;
  @ApiProperty({ example: 'ann@example.com', description: 'Stored lowercased' })
  email: string;
  @ApiProperty({ example: 'Ann Lee' })
  name: string;
  @ApiProperty({ example: false, description: 'Whether the person confirmed the address through the link mailed to it' })
  emailVerified: boolean;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
}

export function userView(user: User): UserView {
  return { id: user.id, email: user.email, name: user.name, emailVerified: Boolean(user.emailVerifiedAt), createdAt: iso(user.createdAt) };
}
