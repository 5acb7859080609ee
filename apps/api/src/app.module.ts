import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, MetricsModule, NodeRegistryModule, PersistenceModule, type AppConfig } from '#workflow/nest';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { ApiExceptionFilter } from './common/api-exception.filter.js';
import { loggerModule, type LogOptions } from './common/logging.js';

import { HealthModule } from './health/health.module.js';
import { NodeTypesModule } from './node-types/node-types.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { McpEndpointModule } from './mcp-endpoint/mcp-endpoint.module.js';
import { ApiMetricsModule } from './metrics/metrics.module.js';
import { McpServersModule } from './mcp-servers/mcp-servers.module.js';
import { ProvidersModule } from './providers/providers.module.js';
import { RedisModule } from './redis/redis.module.js';
import { ToolsetsModule } from './toolsets/toolsets.module.js';
import { RunsModule } from './runs/runs.module.js';
import { SchedulesModule } from './schedules/schedules.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { LiveWorkflowsModule } from './workflows/live-workflows.module.js';
import { WorkflowsModule } from './workflows/workflows.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logs: LogOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggerModule(config, logs.destination),
        PersistenceModule.forRoot(config.mongoUrl),
        RedisModule,
        ApiKeysModule,
        LiveWorkflowsModule,
        HealthModule,
        ProvidersModule,
        ToolsetsModule,
        NodeRegistryModule,
        WorkflowsModule,
        NodeTypesModule,
        RunsModule,
        SchedulesModule,
        WebhooksModule,
        OpenApiModule,
        McpServersModule,
        McpEndpointModule,
        MetricsModule,
        ApiMetricsModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
