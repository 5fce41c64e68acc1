import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';

import { InternalGuard } from '../internal/internal.guard';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [MetricsController],
  providers: [MetricsService, InternalGuard],
  exports: [MetricsService],
})
export class MetricsModule {}
