import { ApiProperty } from '@nestjs/swagger';

import { IdProperty } from '../common/dto-fields';

/** PUT/GET /billing/spend-cap. */
export class SpendCapView {
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ example: true, description: 'Pause the sites once this month’s bandwidth reaches the plan’s limit' })
  pauseSitesAtLimit: boolean;
  @ApiProperty({
    example: false,
    description: 'The sites answer 503 now (the cap is on and the limit is reached); each instance sees a change within SPEND_CAP_REFRESH_SECONDS',
  })
  sitesPaused: boolean;
}
