import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CancelRunService } from './cancel-run.service.js';
import { RunEventsService } from './run-events.service.js';
import { RunsQueryService } from './runs-query.service.js';
import { StartRunService, type StartedRun } from './start-run.service.js';
import { ApiRoute } from '../openapi/api-route.js';
import { runRoutes } from './runs.routes.js';

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
  @ApiRoute(runRoutes.start)
  async start(
    @Param('id') workflowId: string,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return reply(res, await this.starter.start(workflowId, body, { idempotencyKey, query }));
  }

  @Get('runs')
  @ApiRoute(runRoutes.list)
  list(@Query() query: Record<string, unknown>) {
    return this.queries.list(query);
  }

  @Get('runs/:id')
  @ApiRoute(runRoutes.get)
  get(@Param('id') id: string) {
    return this.queries.get(id);
  }

  @Get('runs/:id/logs')
  @ApiRoute(runRoutes.logs)
  logs(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.queries.logs(id, query);
  }

  @Get('runs/:id/events')
  @ApiRoute(runRoutes.events)
  events(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.eventStreams.stream(id, req, res);
  }

  @Post('runs/:id/cancel')
  @ApiRoute(runRoutes.cancel)
  async cancel(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const { statusCode, run } = await this.canceler.cancel(id);
    res.status(statusCode);
    return run;
  }

  @Post('runs/:id/retry')
  @ApiRoute(runRoutes.retry)
  async retry(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return reply(res, await this.starter.retry(id, { idempotencyKey, query }));
  }
}
