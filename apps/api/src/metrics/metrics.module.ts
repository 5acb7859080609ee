import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';

/** `GET /metrics`; the Metrics it serves come from the global MetricsModule of #workflow/nest. */
@Module({ controllers: [MetricsController] })
export class ApiMetricsModule {}
