import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { WorkflowsService } from './workflows.service.js';
import { RequireScope } from '../api-keys/access.decorators.js';

@Controller('workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Post()
  @RequireScope('write')
  create(@Body() body: unknown) {
    return this.workflows.create(body);
  }

  @Post('validate')
  @RequireScope('write')
  @HttpCode(200)
  validate(@Body() body: unknown) {
    return this.workflows.validate(body);
  }

  @Get()
  @RequireScope('read', 'write', 'run')
  list(@Query() query: Record<string, unknown>) {
    return this.workflows.list(query);
  }

  @Get(':id')
  @RequireScope('read', 'write', 'run')
  get(@Param('id') id: string) {
    return this.workflows.get(id);
  }

  @Put(':id')
  @RequireScope('write')
  update(@Param('id') id: string, @Body() body: unknown) {
    return this.workflows.update(id, body);
  }

  @Delete(':id')
  @RequireScope('write')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.workflows.remove(id);
  }

  @Get(':id/versions')
  @RequireScope('read', 'write', 'run')
  listVersions(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.workflows.listVersions(id, query);
  }

  @Get(':id/versions/:version')
  @RequireScope('read', 'write', 'run')
  getVersion(@Param('id') id: string, @Param('version') version: string) {
    return this.workflows.getVersion(id, version);
  }
}
