import { Injectable } from '@nestjs/common';
import { McpServerRepository, type McpServerRecord } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { UpdateMcpServerBody } from './dto/mcp-server-requests.js';
import { PublishedToolNames } from './published-tool-names.js';
import { ToolListChanges } from './tool-list-changes.js';

/** PATCH /mcp-servers/:id: name, description or the whole tool list; connected clients hear tools/list_changed. */
@Injectable()
export class UpdateMcpServer {
  constructor(
    private readonly servers: McpServerRepository,
    private readonly names: PublishedToolNames,
    private readonly changes: ToolListChanges,
  ) {}

  async execute(id: string, body: UpdateMcpServerBody): Promise<McpServerRecord> {
    if (!(await this.servers.findById(id))) throw new NotFoundError('MCP server', id);
    const tools = body.tools && (await this.names.resolve(body.tools));
    const updated = await this.servers.update(id, { ...body, tools });
    if (!updated) throw new NotFoundError('MCP server', id);
    await this.changes.publish([id]);
    return updated;
  }
}
