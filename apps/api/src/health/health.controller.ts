import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, MongooseHealthIndicator } from '@nestjs/terminus';
import { Public } from '../api-keys/access.decorators.js';
import { RedisConnection } from '../redis/redis.module.js';

const CHECK_TIMEOUT_MS = 1500;

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
  live() {
    return { status: 'ok' };
  }

  /** Readiness: 200 with the state of `mongo` and `redis`; 503 naming the one that is down. */
  @Get('ready')
  @HealthCheck()
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
