import { ApiProperty } from '@nestjs/swagger';

/** The health answer, for the OpenAPI document; HealthService builds it. */
export class HealthChecksView {
  @ApiProperty({ enum: ['up', 'down'] })
  database: 'up' | 'down';
  @ApiProperty({ enum: ['up', 'down'] })
  storage: 'up' | 'down';
}

export class HealthView {
  @ApiProperty({ enum: ['ok', 'error'] })
  status: 'ok' | 'error';
  @ApiProperty({ type: HealthChecksView })
  checks: HealthChecksView;
}
