import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { Access } from '../access/decorators';
import { notFound } from '../common/errors';
import { MetricsGuard } from './metrics.guard';
import { MetricsService } from './metrics.service';

/** For the monitoring system only: a direct loopback caller or the bearer of METRICS_TOKEN (MetricsGuard). */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Access({ public: true })
  @UseGuards(MetricsGuard)
  @Get()
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    if (!this.metrics.enabled) throw notFound('Route', 'GET /metrics');
    return this.metrics.registry.metrics();
  }
}
