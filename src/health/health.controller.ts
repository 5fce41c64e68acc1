import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';

import { Endpoint } from '../openapi/endpoint';
import { HealthReport, HealthService } from './health.service';
import { HealthView } from './health.view';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Endpoint({ id: 'getHealth', public: true })
  @Get()
  @ApiOperation({ summary: 'Liveness and readiness: 200 when the database and the object store answer, 503 otherwise' })
  @ApiOkResponse({ type: HealthView, description: 'The database and the object store answer' })
  @ApiResponse({ status: 503, type: HealthView, description: 'The database or the object store does not answer' })
  async check(@Res({ passthrough: true }) res: Response): Promise<HealthReport> {
    const report = await this.health.check();
    res.status(report.status === 'ok' ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    res.setHeader('Cache-Control', 'no-store');
    return report;
  }
}
