import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CancelRunService } from './cancel-run.service.js';
import { RunEventsService } from './run-events.service.js';
import { RunsQueryService } from './runs-query.service.js';
import { StartRunService, type StartedRun } from './start-run.service.js';
import { Caller, RequireScope, WorkflowScoped } from '../api-keys/access.decorators.js';
import type { Principal } from '../api-keys/api-key-authenticator.js';

function reply(res: Response, started: StartedRun) {
  res.status(started.statusCode);
  if (started.replayed) res.setHeader('idempotent-replayed', 'true');
  return started.run;
}

@Controller()
export class RunsController {
  constructor(
    private readonly starter: StartRunService,
    private readonly queries: RunsQueryService,
    private readonly canceler: CancelRunService,
    private readonly eventStreams: RunEventsService,
  ) {}

  @Post('workflows/:id/runs')
  @RequireScope('run')
  @WorkflowScoped({ workflowParam: 'id' })
  async start(
    @Param('id') workflowId: string,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return reply(res, await this.starter.start(workflowId, body, { idempotencyKey, query, triggeredBy: caller.keyId }));
  }

  @Get('runs')
  @RequireScope('read', 'run')
  @WorkflowScoped('filtered')
  list(@Query() query: Record<string, unknown>, @Caller() caller: Principal) {
    return this.queries.list(query, caller.workflows);
  }

  @Get('runs/:id')
  @RequireScope('read', 'run')
  @WorkflowScoped({ runParam: 'id' })
  get(@Param('id') id: string) {
    return this.queries.get(id);
  }

  @Get('runs/:id/logs')
  @RequireScope('read', 'run')
  @WorkflowScoped({ runParam: 'id' })
  logs(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.queries.logs(id, query);
  }

  @Get('runs/:id/events')
  @RequireScope('read', 'run')
  @WorkflowScoped({ runParam: 'id' })
  events(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.eventStreams.stream(id, req, res);
  }

  @Post('runs/:id/cancel')
  @RequireScope('run')
  @WorkflowScoped({ runParam: 'id' })
  async cancel(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const { statusCode, run } = await this.canceler.cancel(id);
    res.status(statusCode);
    return run;
  }

  @Post('runs/:id/retry')
  @RequireScope('run')
  @WorkflowScoped({ runParam: 'id' })
  async retry(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return reply(res, await this.starter.retry(id, { idempotencyKey, query, triggeredBy: caller.keyId }));
  }
}
