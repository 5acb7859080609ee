import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { RequireScope, WorkflowScoped } from '../api-keys/access.decorators.js';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { ApiRoute } from '../common/api-route.js';
import {
  createScheduleBody,
  scheduleParams,
  updateScheduleBody,
  type CreateScheduleBody,
  type UpdateScheduleBody,
} from './dto/schedule-requests.js';
import { Schedules } from './schedules.service.js';
import { scheduleRoutes } from './schedules.routes.js';

const paramsPipe = new ZodPipe(scheduleParams, 'path');
type ScheduleParams = { id: string; scheduleId: string };

/** Schedules of a workflow: changing them needs `write` (and the workflow in a limited key's grant). */
@Controller('workflows/:id/schedules')
export class SchedulesController {
  constructor(private readonly schedules: Schedules) {}

  @Post()
  @ApiRoute(scheduleRoutes.create)
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  create(@Param('id') workflowId: string, @Body(new ZodPipe(createScheduleBody)) body: CreateScheduleBody) {
    return this.schedules.create(workflowId, body);
  }

  @Get()
  @ApiRoute(scheduleRoutes.list)
  @RequireScope('read', 'write')
  @WorkflowScoped({ workflowParam: 'id' })
  list(@Param('id') workflowId: string, @Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.schedules.list(workflowId, page);
  }

  @Get(':scheduleId')
  @ApiRoute(scheduleRoutes.get)
  @RequireScope('read', 'write')
  @WorkflowScoped({ workflowParam: 'id' })
  get(@Param(paramsPipe) { id, scheduleId }: ScheduleParams) {
    return this.schedules.get(id, scheduleId);
  }

  @Patch(':scheduleId')
  @ApiRoute(scheduleRoutes.update)
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  update(@Param(paramsPipe) { id, scheduleId }: ScheduleParams, @Body(new ZodPipe(updateScheduleBody)) body: UpdateScheduleBody) {
    return this.schedules.update(id, scheduleId, body);
  }

  @Delete(':scheduleId')
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  @HttpCode(204)
  @ApiRoute(scheduleRoutes.remove)
  async remove(@Param(paramsPipe) { id, scheduleId }: ScheduleParams): Promise<void> {
    await this.schedules.delete(id, scheduleId);
  }
}
