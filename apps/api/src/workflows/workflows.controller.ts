import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { WorkflowsService } from './workflows.service.js';
import { ApiRoute } from '../openapi/api-route.js';
import { workflowRoutes } from './workflows.routes.js';

@Controller('workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Post()
  @ApiRoute(workflowRoutes.create)
  create(@Body() body: unknown) {
    return this.workflows.create(body);
  }

  @Post('validate')
  @HttpCode(200)
  @ApiRoute(workflowRoutes.validate)
  validate(@Body() body: unknown) {
    return this.workflows.validate(body);
  }

  @Get()
  @ApiRoute(workflowRoutes.list)
  list(@Query() query: Record<string, unknown>) {
    return this.workflows.list(query);
  }

  @Get(':id')
  @ApiRoute(workflowRoutes.get)
  get(@Param('id') id: string) {
    return this.workflows.get(id);
  }

  @Put(':id')
  @ApiRoute(workflowRoutes.update)
  update(@Param('id') id: string, @Body() body: unknown) {
    return this.workflows.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute(workflowRoutes.remove)
  async remove(@Param('id') id: string): Promise<void> {
    await this.workflows.remove(id);
  }

  @Get(':id/versions')
  @ApiRoute(workflowRoutes.listVersions)
  listVersions(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.workflows.listVersions(id, query);
  }

  @Get(':id/versions/:version')
  @ApiRoute(workflowRoutes.getVersion)
  getVersion(@Param('id') id: string, @Param('version') version: string) {
    return this.workflows.getVersion(id, version);
  }
}
