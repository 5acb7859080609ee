import { DynamicModule, Global, Module } from '@nestjs/common';
import { MongooseModule, type ModelDefinition } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { traceStoreCommands } from '../tracing/store-spans.js';
import { tracingActive } from '../tracing/tracing.js';
import { API_KEY_MODEL, ApiKeySchema } from './api-key.schema.js';
import { MCP_SERVER_MODEL, McpServerSchema } from './mcp-server.schema.js';
import { PROVIDER_MODEL, ProviderSchema } from './provider.schema.js';
import { NODE_EXECUTION_MODEL, NodeExecutionSchema } from './node-execution.schema.js';
import { RUN_MCP_SESSION_MODEL, RunMcpSessionSchema } from './run-session.schema.js';
import { RUN_MODEL, RunSchema } from './run.schema.js';
import { TOOLSET_MODEL, ToolsetSchema } from './toolset.schema.js';
import { OAUTH_GRANT_MODEL, OAuthGrantSchema } from './oauth-grant.schema.js';
import { TOOL_CALL_MODEL, ToolCallSchema } from './tool-call.schema.js';
import { TOOLSET_CHANGE_MODEL, ToolsetChangeSchema } from './toolset-change.schema.js';
import { SCHEDULE_MODEL, ScheduleSchema } from './schedule.schema.js';
import { WEBHOOK_MODEL, WebhookSchema } from './webhook.schema.js';
import { WORKFLOW_MODEL, WORKFLOW_VERSION_MODEL, WorkflowSchema, WorkflowVersionSchema } from './workflow.schema.js';

/**
 * Every collection of mcpflow, registered once and shared by the API and the worker
 * (one provider list feeding both apps). Each feature lists its schema in `MODELS`.
 */
export const MODELS: ModelDefinition[] = [
  { name: TOOLSET_MODEL, schema: ToolsetSchema },
  { name: PROVIDER_MODEL, schema: ProviderSchema },
  { name: WORKFLOW_MODEL, schema: WorkflowSchema },
  { name: WORKFLOW_VERSION_MODEL, schema: WorkflowVersionSchema },
  { name: RUN_MODEL, schema: RunSchema },
  { name: NODE_EXECUTION_MODEL, schema: NodeExecutionSchema },
  { name: RUN_MCP_SESSION_MODEL, schema: RunMcpSessionSchema },
  { name: TOOL_CALL_MODEL, schema: ToolCallSchema },
  { name: TOOLSET_CHANGE_MODEL, schema: ToolsetChangeSchema },
  { name: MCP_SERVER_MODEL, schema: McpServerSchema },
  { name: API_KEY_MODEL, schema: ApiKeySchema },
  { name: SCHEDULE_MODEL, schema: ScheduleSchema },
  { name: WEBHOOK_MODEL, schema: WebhookSchema },
  { name: OAUTH_GRANT_MODEL, schema: OAuthGrantSchema },
];

@Global()
@Module({})
export class PersistenceModule {
  static forRoot(mongoUrl: string): DynamicModule {
    const features = MongooseModule.forFeature(MODELS);
    // Traced, every command of the store is a span (the driver's command monitoring, on only then).
    const traced = tracingActive();
    return {
      module: PersistenceModule,
      imports: [
        MongooseModule.forRoot(mongoUrl, {
          serverSelectionTimeoutMS: 5000,
          // FerretDB (the embedded default) and MongoDB both accept this; indexes are
          // created at boot so a fresh database works without a migration step.
          autoIndex: true,
          ...(traced && {
            monitorCommands: true,
            connectionFactory: (connection: Connection) => {
              traceStoreCommands(connection.getClient());
              return connection;
            },
          }),
        }),
        features,
      ],
      exports: [features],
    };
  }
}
