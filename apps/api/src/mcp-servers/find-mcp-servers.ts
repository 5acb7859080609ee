import { Injectable } from '@nestjs/common';
import { McpServerRepository, type McpServerRecord, type Page } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { PageQuery } from '../common/pagination.js';

/** GET /mcp-servers (newest first, paged) and GET /mcp-servers/:id. */
@Injectable()
export class FindMcpServers {
  constructor(private readonly servers: McpServerRepository) {}

  list(page: PageQuery): Promise<Page<McpServerRecord>> {
    return this.servers.page(page);
  }

  async get(id: string): Promise<McpServerRecord> {
    const server = await this.servers.findById(id);
    if (!server) throw new NotFoundError('MCP server', id);
    return server;
  }
}
