import { Module } from '@nestjs/common';
import { ToolsetStoreModule, WorkflowStoreModule } from '#workflow/nest';
import { McpServersModule } from '../mcp-servers/mcp-servers.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { AuthorizationRounds } from './authorization-rounds.js';
import { CallPublishedTool } from './call-published-tool.js';
import { CallRegistry } from './call-registry.js';
import { ClientElicitations } from './client-elicitations.js';
import { LegacySseSessions } from './legacy-sse.js';
import { McpCallers } from './mcp-callers.js';
import { McpEndpointController } from './mcp-endpoint.controller.js';
import { PassOnAuthorization } from './pass-on-authorization.js';
import { PublishedCatalog } from './published-catalog.js';
import { PublishedServerFactory } from './published-server-factory.js';
import { StreamableHttpEndpoint } from './streamable-http.js';

/** The MCP protocol endpoints of published servers (`/mcp/<id>`, legacy `/mcp/<id>/sse`); calls are runs. */
@Module({
  imports: [WorkflowStoreModule, ToolsetStoreModule, McpServersModule, RunsModule],
  controllers: [McpEndpointController],
  providers: [
    McpCallers,
    PublishedCatalog,
    CallPublishedTool,
    CallRegistry,
    ClientElicitations,
    AuthorizationRounds,
    PassOnAuthorization,
    PublishedServerFactory,
    StreamableHttpEndpoint,
    LegacySseSessions,
  ],
})
export class McpEndpointModule {}
