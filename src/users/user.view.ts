import { ApiProperty } from '@nestjs/swagger';
import { iso } from '../common/time';
import type { User } from './user.entity';

export class UserView {
  @ApiProperty({ example: 'usr_0123456789abcdefghijklmn' })
  id: string;
  @ApiProperty({ example: 'ann@example.com', description: 'Stored lowercased' })
  email: string;
  @ApiProperty({ example: 'Ann Lee' })
  name: string;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
}

export function userView(user: User): UserView {
  return { id: user.id, email: user.email, name: user.name, createdAt: iso(user.createdAt) };
}
