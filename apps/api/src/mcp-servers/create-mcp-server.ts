import { Injectable, Logger } from '@nestjs/common';
import { McpServerRepository, type McpServerRecord } from '#workflow/nest';
import type { CreateMcpServerBody } from './dto/mcp-server-requests.js';
import { PublishedToolNames } from './published-tool-names.js';

/** POST /mcp-servers: publish workflows as the tools of a new MCP server. */
@Injectable()
export class CreateMcpServer {
  private readonly logger = new Logger(CreateMcpServer.name);

  constructor(
    private readonly servers: McpServerRepository,
    private readonly names: PublishedToolNames,
  ) {}

  async execute(body: CreateMcpServerBody): Promise<McpServerRecord> {
    const tools = await this.names.resolve(body.tools);
    const server = await this.servers.create({ name: body.name, description: body.description, tools });
    this.logger.log({ mcpServerId: server.id, tools: tools.length }, 'MCP server published');
    return server;
  }
}
