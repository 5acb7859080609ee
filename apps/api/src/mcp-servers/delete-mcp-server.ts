import { Injectable, Logger } from '@nestjs/common';
import { McpServerRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { ToolListChanges } from './tool-list-changes.js';

/** DELETE /mcp-servers/:id: the endpoint answers 404 from then on; open streams are told, then closed. */
@Injectable()
export class DeleteMcpServer {
  private readonly logger = new Logger(DeleteMcpServer.name);

  constructor(
    private readonly servers: McpServerRepository,
    private readonly changes: ToolListChanges,
  ) {}

  async execute(id: string): Promise<void> {
    if (!(await this.servers.delete(id))) throw new NotFoundError('MCP server', id);
    await this.changes.publish([id]);
    await this.changes.publishDeleted(id);
    this.logger.log({ mcpServerId: id }, 'MCP server deleted');
  }
}
