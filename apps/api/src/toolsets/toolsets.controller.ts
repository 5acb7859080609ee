import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { CallTool } from './call-tool.js';
import { CheckToolset } from './check-toolset.js';
import { CreateToolset, PreviewToolset } from './create-toolset.js';
import { DeleteToolset } from './delete-toolset.js';
import { importToolsetsBody, importToolsetsQuery, type ImportToolsetsBody } from './dto/toolset-import.js';
import {
  callToolBody,
  createToolsetBody,
  updateToolsetBody,
  type CallToolBody,
  type CreateToolsetBody,
  type UpdateToolsetBody,
} from './dto/toolset-requests.js';
import { toolsetView } from './dto/toolset-views.js';
import { AuthorizeToolset, ToolsetAuthStates } from './authorize-toolset.js';
import type { ToolsetRecord } from '#workflow/nest';
import { FindToolsets } from './find-toolsets.js';
import { requesterOf } from './requester.js';
import { ToolsetChanges } from './toolset-changes.js';
import { ToolsetUsage, usageQuery, type UsageQuery } from './toolset-usage.js';
import { ImportToolsets } from './import-toolsets.js';
import { RefreshToolset } from './refresh-toolset.js';
import { UpdateToolset } from './update-toolset.js';
import { Caller, RequireScope } from '../api-keys/access.decorators.js';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { ApiRoute } from '../common/api-route.js';
import { toolsetRoutes } from './toolsets.routes.js';

/** Aborted when the client goes away before the answer, so a slow MCP server is not waited for. */
function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

@Controller('toolsets')
export class ToolsetsController {
  constructor(
    private readonly createToolset: CreateToolset,
    private readonly previewToolset: PreviewToolset,
    private readonly findToolsets: FindToolsets,
    private readonly updateToolset: UpdateToolset,
    private readonly refreshToolset: RefreshToolset,
    private readonly deleteToolset: DeleteToolset,
    private readonly callTool: CallTool,
    private readonly importToolsets: ImportToolsets,
    private readonly checkToolset: CheckToolset,
    private readonly toolsetUsage: ToolsetUsage,
    private readonly toolsetChanges: ToolsetChanges,
    private readonly authorizeToolset: AuthorizeToolset,
    private readonly authStates: ToolsetAuthStates,
  ) {}

  /** A toolset as answered: with its OAuth state when it has one. */
  private async view(toolset: ToolsetRecord) {
    return toolsetView(toolset, await this.authStates.of(toolset));
  }

  @Post()
  @ApiRoute(toolsetRoutes.create)
  @RequireScope('write')
  async create(
    @Body(new ZodPipe(createToolsetBody)) body: CreateToolsetBody,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return this.view(await this.createToolset.execute(body, requesterOf(caller), clientGone(res)));
  }

  @Post('preview')
  @RequireScope('write')
  @HttpCode(200)
  @ApiRoute(toolsetRoutes.preview)
  preview(
    @Body(new ZodPipe(createToolsetBody)) body: CreateToolsetBody,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return this.previewToolset.execute(body, requesterOf(caller), clientGone(res));
  }

  @Post('import')
  @RequireScope('write')
  @HttpCode(200)
  @ApiRoute(toolsetRoutes.import)
  import(
    @Body(new ZodPipe(importToolsetsBody)) body: ImportToolsetsBody,
    @Query(new ZodPipe(importToolsetsQuery, 'query')) query: { dryRun: boolean },
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return this.importToolsets.execute(body, query.dryRun, requesterOf(caller), clientGone(res));
  }

  @Get()
  @ApiRoute(toolsetRoutes.list)
  @RequireScope('read', 'write')
  list(@Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.findToolsets.list(page);
  }

  @Get(':id')
  @ApiRoute(toolsetRoutes.get)
  @RequireScope('read', 'write')
  async get(@Param('id') id: string) {
    return this.view(await this.findToolsets.get(id));
  }

  @Patch(':id')
  @ApiRoute(toolsetRoutes.update)
  @RequireScope('write')
  async update(
    @Param('id') id: string,
    @Body(new ZodPipe(updateToolsetBody)) body: UpdateToolsetBody,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return this.view(await this.updateToolset.execute(id, body, requesterOf(caller), clientGone(res)));
  }

  @Post(':id/refresh')
  @RequireScope('write')
  @HttpCode(200)
  @ApiRoute(toolsetRoutes.refresh)
  async refresh(@Param('id') id: string, @Res({ passthrough: true }) res: Response, @Caller() caller: Principal) {
    const { toolset, added, removed, changed } = await this.refreshToolset.execute(id, requesterOf(caller), clientGone(res));
    return { toolset: await this.view(toolset), added, removed, changed };
  }

  @Post(':id/authorize')
  @RequireScope('write')
  @HttpCode(200)
  @ApiRoute(toolsetRoutes.authorize)
  authorize(@Param('id') id: string, @Caller() caller: Principal) {
    return this.authorizeToolset.execute(id, requesterOf(caller));
  }

  @Get(':id/changes')
  @ApiRoute(toolsetRoutes.changes)
  @RequireScope('read', 'write')
  changes(@Param('id') id: string, @Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.toolsetChanges.list(id, page);
  }

  @Get(':id/usage')
  @ApiRoute(toolsetRoutes.usage)
  @RequireScope('read', 'write')
  usage(@Param('id') id: string, @Query(new ZodPipe(usageQuery, 'query')) query: UsageQuery) {
    return this.toolsetUsage.execute(id, query);
  }

  @Post(':id/check')
  @RequireScope('write')
  @HttpCode(200)
  @ApiRoute(toolsetRoutes.check)
  check(@Param('id') id: string, @Res({ passthrough: true }) res: Response, @Caller() caller: Principal) {
    return this.checkToolset.execute(id, requesterOf(caller), clientGone(res));
  }

  @Delete(':id')
  @RequireScope('write')
  @HttpCode(204)
  @ApiRoute(toolsetRoutes.remove)
  async remove(@Param('id') id: string): Promise<void> {
    await this.deleteToolset.execute(id);
  }

  @Post(':id/tools/:tool/call')
  @RequireScope('write')
  @HttpCode(200)
  @ApiRoute(toolsetRoutes.call)
  call(
    @Param('id') id: string,
    @Param('tool') tool: string,
    @Body(new ZodPipe(callToolBody)) body: CallToolBody,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return this.callTool.execute(id, tool, body.arguments, requesterOf(caller), clientGone(res));
  }
}
