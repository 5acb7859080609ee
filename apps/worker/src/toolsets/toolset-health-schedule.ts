import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import {
  APP_CONFIG,
  redisConnectionOptions,
  TOOLSET_HEALTH_QUEUE_NAME,
  ToolsetHealthChecker,
  ToolsetRepository,
  type AppConfig,
} from '#workflow/nest';

const SCHEDULER_ID = 'check-every-toolset';
/** Toolsets checked at once by the one worker doing a round. */
const CONCURRENCY = 4;

/**
 * `TOOLSET_HEALTH_INTERVAL_MS`: every interval, one worker checks every toolset and stores each
 * outcome as its `health`. BullMQ does the scheduling and the exclusion — a job scheduler adds one
 * job per interval (however many workers upsert it), and the queue's global concurrency of 1 keeps
 * a second round from starting, on any worker, while one is still going. With the variable unset
 * (0) the scheduler is removed, so turning it off on the workers stops the rounds.
 */
@Injectable()
export class ToolsetHealthSchedule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolsetHealthSchedule.name);
  private queue?: Queue;
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly toolsets: ToolsetRepository,
    private readonly checker: ToolsetHealthChecker,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const every = this.config.toolsetHealthIntervalMs;
    const options = { connection: redisConnectionOptions(this.config, true), prefix: this.config.queuePrefix };
    this.queue = new Queue(TOOLSET_HEALTH_QUEUE_NAME, options);
    this.queue.on('error', (error) => this.logger.warn({ err: error }, 'toolset health queue error'));
    if (every <= 0) {
      await this.queue.removeJobScheduler(SCHEDULER_ID);
      return;
    }
    await this.queue.setGlobalConcurrency(1);
    await this.queue.upsertJobScheduler(
      SCHEDULER_ID,
      { every },
      { name: 'check-all', opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
    this.worker = new Worker(TOOLSET_HEALTH_QUEUE_NAME, () => this.checkAll(), { ...options, concurrency: 1 });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'toolset health worker error'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
  }

  /** One round: every toolset, a few at once; a check's failure is its outcome, not the round's. */
  async checkAll(): Promise<void> {
    const ids = await this.toolsets.allIds();
    let next = 0;
    let unhealthy = 0;
    const lane = async () => {
      for (let index = next++; index < ids.length; index = next++) {
        const health = await this.checker.check(ids[index]).catch((error: unknown) => {
          this.logger.warn({ err: error, toolsetId: ids[index] }, 'toolset health check could not run');
          return undefined;
        });
        if (health && !health.ok) unhealthy++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, lane));
    this.logger.log({ toolsets: ids.length, unhealthy }, 'toolset health round done');
  }
}
