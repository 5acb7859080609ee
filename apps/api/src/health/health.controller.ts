import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, MongooseHealthIndicator } from '@nestjs/terminus';
import { Public } from '../api-keys/access.decorators.js';
import { z } from 'zod';
import { ApiRoute } from '../common/api-route.js';
import { RedisConnection } from '../redis/redis.module.js';

const CHECK_TIMEOUT_MS = 1500;

const indicators = z.record(z.string(), z.looseObject({ status: z.string() }));
const readiness = z.object({ status: z.string(), info: indicators.optional(), error: indicators.optional(), details: indicators });
/** The error body, with the readiness report beside it (which of mongo and redis is down). */
const notReady = z.looseObject({
  statusCode: z.literal(503),
  code: z.literal('NOT_READY'),
  message: z.string(),
  requestId: z.string(),
  details: indicators,
});

@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mongoose: MongooseHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisConnection,
  ) {}

  /** Liveness: the process answers. */
  @Get()
  @ApiRoute({
    summary: 'Liveness: the process answers',
    tags: ['service'],
    public: true,
    responses: { 200: z.object({ status: z.literal('ok') }) },
  })
  live() {
    return { status: 'ok' };
  }

  /** Readiness: 200 with the state of `mongo` and `redis`; 503 naming the one that is down. */
  @Get('ready')
  @HealthCheck()
  @ApiRoute({
    summary: 'Readiness: MongoDB and Redis answer',
    tags: ['service'],
    public: true,
    responses: { 200: readiness },
    errors: { 503: notReady },
  })
  ready() {
    return this.health.check([
      this.mongoose.pingCheck('mongo').withTimeout(CHECK_TIMEOUT_MS),
      this.indicators
        .check('redis')
        .attempt(async () => {
          await this.redis.client.ping();
        })
        .withTimeout(CHECK_TIMEOUT_MS),
    ]);
  }
}
