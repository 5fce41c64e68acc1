import { ApiProperty } from '@nestjs/swagger';

/** One sign-in session as its owner sees it (GET /auth/sessions). */
export class SessionView {
  @ApiProperty({ format: 'uuid', description: 'The session (its refresh-token family; the access JWT’s `sid`)' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'Chrome', description: 'The client family it was started from' })
  device: string | null;

  @ApiProperty({ example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-11-27T10:15:30.123Z', description: 'Its last sign-in or refresh' })
  lastUsedAt: string;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.0/24', description: 'The network it was started from (IPv4 /24, IPv6 /48)' })
  ip: string | null;

  @ApiProperty({ description: 'Whether it is the session of the JWT making this request' })
  current: boolean;
}

export class SessionListView {
  @ApiProperty({ type: [SessionView] })
  data: SessionView[];
}
