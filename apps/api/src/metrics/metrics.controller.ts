import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { APP_CONFIG, Metrics, readWorkerSnapshots, type AppConfig } from '#workflow/nest';
import { RequireScope } from '../api-keys/access.decorators.js';
import { ApiRoute } from '../common/api-route.js';
import { RedisConnection } from '../redis/redis.module.js';

const DESCRIPTION = `The Prometheus exposition (text format 0.0.4): this API's HTTP, queue-depth and process
series, plus the runs, nodes, MCP calls and MCP sessions of every live worker, summed (each worker
also serves its own on its metrics listener). Needs a key with the \`metrics\` scope (or \`admin\`).`;

@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly redis: RedisConnection,
  ) {}

  @Get()
  @RequireScope('metrics')
  @ApiRoute({
    summary: 'Prometheus metrics of the API and its workers',
    description: DESCRIPTION,
    tags: ['service'],
    responses: { 200: { description: 'The exposition text', contentType: 'text/plain', schema: z.string() } },
  })
  async scrape(@Res() res: Response): Promise<void> {
    // Redis away: the API's own series still answer; the workers' are missing from this scrape.
    const workers = await readWorkerSnapshots(this.redis.client, this.config.queuePrefix).catch(() => []);
    const text = await this.metrics.exposition(workers);
    res.status(200).type(this.metrics.contentType).send(text);
  }
}
