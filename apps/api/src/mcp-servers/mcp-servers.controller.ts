import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { CreateMcpServer } from './create-mcp-server.js';
import { DeleteMcpServer } from './delete-mcp-server.js';
import { createMcpServerBody, updateMcpServerBody, type CreateMcpServerBody, type UpdateMcpServerBody } from './dto/mcp-server-requests.js';
import { mcpServerView } from './dto/mcp-server-views.js';
import { FindMcpServers } from './find-mcp-servers.js';
import { publicBaseUrl } from './public-base-url.js';
import { UpdateMcpServer } from './update-mcp-server.js';
import { RequireScope } from '../api-keys/access.decorators.js';
import { ApiRoute } from '../common/api-route.js';
import { mcpServerRoutes } from './mcp-servers.routes.js';

/** REST for published MCP servers; the protocol endpoint itself is mcp-endpoint/. */
@Controller('mcp-servers')
export class McpServersController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly createServer: CreateMcpServer,
    private readonly findServers: FindMcpServers,
    private readonly updateServer: UpdateMcpServer,
    private readonly deleteServer: DeleteMcpServer,
  ) {}

  @Post()
  @ApiRoute(mcpServerRoutes.create)
  @RequireScope('write')
  async create(@Body(new ZodPipe(createMcpServerBody)) body: CreateMcpServerBody, @Req() req: Request) {
    return mcpServerView(await this.createServer.execute(body), publicBaseUrl(this.config, req));
  }

  @Get()
  @ApiRoute(mcpServerRoutes.list)
  @RequireScope('read', 'write')
  async list(@Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery, @Req() req: Request) {
    const { items, nextCursor } = await this.findServers.list(page);
    const base = publicBaseUrl(this.config, req);
    return { items: items.map((server) => mcpServerView(server, base)), nextCursor };
  }

  @Get(':id')
  @ApiRoute(mcpServerRoutes.get)
  @RequireScope('read', 'write')
  async get(@Param('id') id: string, @Req() req: Request) {
    return mcpServerView(await this.findServers.get(id), publicBaseUrl(this.config, req));
  }

  @Patch(':id')
  @ApiRoute(mcpServerRoutes.update)
  @RequireScope('write')
  async update(@Param('id') id: string, @Body(new ZodPipe(updateMcpServerBody)) body: UpdateMcpServerBody, @Req() req: Request) {
    return mcpServerView(await this.updateServer.execute(id, body), publicBaseUrl(this.config, req));
  }

  @Delete(':id')
  @RequireScope('write')
  @HttpCode(204)
  @ApiRoute(mcpServerRoutes.remove)
  async remove(@Param('id') id: string): Promise<void> {
    await this.deleteServer.execute(id);
  }
}
