import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Caller, RequireScope, WorkflowScoped } from '../api-keys/access.decorators.js';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { RequestHeader } from '../common/request-header.js';
import { ZodPipe } from '../common/zod-validation.js';
import { AnswerRunInput } from './answer-run-input.js';
import { CancelRun } from './cancel-run.js';
import { DeleteRun } from './delete-run.js';
import {
  idempotencyKeySchema,
  logPageQuerySchema,
  replayRunBodySchema,
  runInputBodySchema,
  runListQuerySchema,
  startRunBodySchema,
  waitQuerySchema,
  type LogPageQuery,
  type ReplayRunBody,
  type RunInputBody,
  type RunListQuery,
  type StartRunBody,
} from './dto/run-requests.js';
import { FindRuns } from './find-runs.js';
import { ReplayRun } from './replay-run.js';
import { RetryRun } from './retry-run.js';
import type { StartedRun } from './run-admission.js';
import { StartRun } from './start-run.js';
import { StreamRunEvents } from './stream-run-events.js';
import { ApiRoute } from '../common/api-route.js';
import { runRoutes } from './runs.routes.js';

const idempotencyKeyPipe = new ZodPipe(idempotencyKeySchema, 'Idempotency-Key header', { optional: true });
const waitPipe = new ZodPipe(waitQuerySchema, 'query');

function reply(res: Response, started: StartedRun) {
  res.status(started.statusCode);
  if (started.replayed) res.setHeader('idempotent-replayed', 'true');
  return started.run;
}

@Controller()
export class RunsController {
  constructor(
    private readonly startRun: StartRun,
    private readonly retryRun: RetryRun,
    private readonly replayRun: ReplayRun,
    private readonly findRuns: FindRuns,
    private readonly cancelRun: CancelRun,
    private readonly streamRunEvents: StreamRunEvents,
    private readonly deleteRun: DeleteRun,
    private readonly answerRunInput: AnswerRunInput,
  ) {}

  @Post('workflows/:id/runs')
  @ApiRoute(runRoutes.start)
  @RequireScope('run')
  @WorkflowScoped({ workflowParam: 'id' })
  async start(
    @Param('id') workflowId: string,
    @Body(new ZodPipe(startRunBodySchema)) body: StartRunBody,
    @Query(waitPipe) { wait }: { wait?: number },
    @RequestHeader('idempotency-key', idempotencyKeyPipe) idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return reply(res, await this.startRun.execute(workflowId, body, { idempotencyKey, waitMs: wait, triggeredBy: caller.keyId }, caller));
  }

  @Get('runs')
  @ApiRoute(runRoutes.list)
  @RequireScope('read', 'run')
  @WorkflowScoped('filtered')
  list(
    @Query(new ZodPipe(runListQuerySchema, 'query')) filter: RunListQuery,
    @Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery,
    @Caller() caller: Principal,
  ) {
    return this.findRuns.list(filter, page, caller.workflows);
  }

  @Get('runs/:id')
  @ApiRoute(runRoutes.get)
  @RequireScope('read', 'run')
  @WorkflowScoped({ runParam: 'id' })
  get(@Param('id') id: string) {
    return this.findRuns.get(id);
  }

  @Get('runs/:id/logs')
  @ApiRoute(runRoutes.logs)
  @RequireScope('read', 'run')
  @WorkflowScoped({ runParam: 'id' })
  logs(@Param('id') id: string, @Query(new ZodPipe(logPageQuerySchema, 'query')) page: LogPageQuery) {
    return this.findRuns.logs(id, page);
  }

  @Get('runs/:id/events')
  @ApiRoute(runRoutes.events)
  @RequireScope('read', 'run')
  @WorkflowScoped({ runParam: 'id' })
  events(@Param('id') id: string, @Caller() caller: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.streamRunEvents.execute(id, caller.keyId, req, res);
  }

  @Delete('runs/:id')
  @RequireScope('write')
  @HttpCode(204)
  @ApiRoute(runRoutes.delete)
  async delete(@Param('id') id: string): Promise<void> {
    await this.deleteRun.execute(id);
  }

  @Post('runs/:id/cancel')
  @ApiRoute(runRoutes.cancel)
  @RequireScope('run')
  @WorkflowScoped({ runParam: 'id' })
  async cancel(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const { statusCode, run } = await this.cancelRun.execute(id);
    res.status(statusCode);
    return run;
  }

  @Post('runs/:id/input')
  @ApiRoute(runRoutes.input)
  @RequireScope('run')
  @WorkflowScoped({ runParam: 'id' })
  @HttpCode(202)
  input(@Param('id') id: string, @Body(new ZodPipe(runInputBodySchema)) body: RunInputBody, @Caller() caller: Principal) {
    return this.answerRunInput.execute(id, body, caller.keyId);
  }

  @Post('runs/:id/retry')
  @ApiRoute(runRoutes.retry)
  @RequireScope('run')
  @WorkflowScoped({ runParam: 'id' })
  async retry(
    @Param('id') id: string,
    @Query(waitPipe) { wait }: { wait?: number },
    @RequestHeader('idempotency-key', idempotencyKeyPipe) idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return reply(res, await this.retryRun.execute(id, { idempotencyKey, waitMs: wait, triggeredBy: caller.keyId }, caller));
  }

  @Post('runs/:id/replay')
  @ApiRoute(runRoutes.replay)
  @RequireScope('run')
  @WorkflowScoped({ runParam: 'id' })
  async replay(
    @Param('id') id: string,
    @Body(new ZodPipe(replayRunBodySchema)) body: ReplayRunBody,
    @Query(waitPipe) { wait }: { wait?: number },
    @Res({ passthrough: true }) res: Response,
    @Caller() caller: Principal,
  ) {
    return reply(res, await this.replayRun.execute(id, body, { waitMs: wait, triggeredBy: caller.keyId }, caller));
  }
}
