import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, ToolsetHealthChecker, ToolsetRepository, type AppConfig } from '#workflow/nest';
import { PeriodicJob } from '../periodic/periodic-job.js';

const SCHEDULER_ID = 'check-every-toolset';
/** Toolsets checked at once by the one worker doing a round. */
const CONCURRENCY = 4;

/**
 * `TOOLSET_HEALTH_INTERVAL_MS`: every interval, one worker checks every toolset and stores each
 * outcome as its `health`: a PeriodicJob (one round at a time over all workers). With the variable
 * unset (0) the scheduler is removed, so turning it off on the workers stops the rounds.
 */
@Injectable()
export class ToolsetHealthSchedule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolsetHealthSchedule.name);
  private job?: PeriodicJob;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly toolsets: ToolsetRepository,
    private readonly checker: ToolsetHealthChecker,
  ) {}

  onApplicationBootstrap(): void {
    this.job = new PeriodicJob(
      this.config,
      {
        queue: 'toolsetHealth',
        schedulerId: SCHEDULER_ID,
        jobName: 'check-all',
        everyMs: this.config.toolsetHealthIntervalMs,
        keepFailed: 100,
        run: () => this.checkAll(),
      },
      this.logger,
    );
    void this.job.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.job?.close();
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
