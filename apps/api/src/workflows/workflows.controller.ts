import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { WorkflowsService } from './workflows.service.js';

@Controller('workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Post()
  create(@Body() body: unknown) {
    return this.workflows.create(body);
  }

  @Post('validate')
  @HttpCode(200)
  validate(@Body() body: unknown) {
    return this.workflows.validate(body);
  }

  @Get()
  list(@Query() query: Record<string, unknown>) {
    return this.workflows.list(query);
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.workflows.get(id);
  }

  @Put(':id')
  update(@Param('id') id: string, @Body() body: unknown) {
    return this.workflows.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.workflows.remove(id);
  }

  @Get(':id/versions')
  listVersions(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.workflows.listVersions(id, query);
  }

  @Get(':id/versions/:version')
  getVersion(@Param('id') id: string, @Param('version') version: string) {
    return this.workflows.getVersion(id, version);
  }
}
