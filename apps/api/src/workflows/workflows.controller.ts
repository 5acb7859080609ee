import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { WorkflowsService } from './workflows.service.js';
import { Caller, RequireScope, WorkflowScoped } from '../api-keys/access.decorators.js';
import type { Principal } from '../api-keys/api-key-authenticator.js';

@Controller('workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Post()
  @RequireScope('write')
  create(@Body() body: unknown, @Caller() caller: Principal) {
    return this.workflows.create(body, caller.keyId);
  }

  @Post('validate')
  @RequireScope('write')
  @HttpCode(200)
  validate(@Body() body: unknown) {
    return this.workflows.validate(body);
  }

  @Get()
  @RequireScope('read', 'write', 'run')
  @WorkflowScoped('filtered')
  list(@Query() query: Record<string, unknown>, @Caller() caller: Principal) {
    return this.workflows.list(query, caller.workflows);
  }

  @Get(':id')
  @RequireScope('read', 'write', 'run')
  @WorkflowScoped({ workflowParam: 'id' })
  get(@Param('id') id: string) {
    return this.workflows.get(id);
  }

  @Put(':id')
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  update(@Param('id') id: string, @Body() body: unknown, @Caller() caller: Principal) {
    return this.workflows.update(id, body, caller.keyId);
  }

  @Delete(':id')
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.workflows.remove(id);
  }

  @Get(':id/versions')
  @RequireScope('read', 'write', 'run')
  @WorkflowScoped({ workflowParam: 'id' })
  listVersions(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.workflows.listVersions(id, query);
  }

  @Get(':id/versions/:version')
  @RequireScope('read', 'write', 'run')
  @WorkflowScoped({ workflowParam: 'id' })
  getVersion(@Param('id') id: string, @Param('version') version: string) {
    return this.workflows.getVersion(id, version);
  }
}
