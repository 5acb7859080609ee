import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, ToolsetRefreshRequests, type AppConfig } from '#workflow/nest';
import { InvalidRequestError } from '../common/api-errors.js';

/**
 * A toolset's optional periodic refresh (`refreshIntervalMs`): checked against the operator's
 * minimum (`TOOLSET_REFRESH_MIN_INTERVAL_MS`) before anything is stored or started, then set as
 * a BullMQ job scheduler once the toolset is stored. The stored toolset is the truth: if setting
 * the schedule fails (Redis away) it is logged, and the workers set it again when they start.
 */
@Injectable()
export class ToolsetRefreshSchedule {
  private readonly logger = new Logger(ToolsetRefreshSchedule.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly requests: ToolsetRefreshRequests,
  ) {}

  /** 400 at `/refreshIntervalMs` for an interval under the minimum; null (off) and absent pass. */
  check(intervalMs: number | null | undefined): void {
    const minimum = this.config.toolsetRefreshMinIntervalMs;
    if (intervalMs === null || intervalMs === undefined || intervalMs >= minimum) return;
    const message = `must be at least ${minimum} ms (TOOLSET_REFRESH_MIN_INTERVAL_MS), or null for no periodic refresh`;
    throw new InvalidRequestError([{ path: '/refreshIntervalMs', code: 'TOO_SMALL', message }], 'The request body is invalid');
  }

  /** After the toolset was stored (or deleted: no interval). */
  async apply(toolsetId: string, intervalMs: number | undefined): Promise<void> {
    await this.requests
      .schedule(toolsetId, intervalMs)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, toolsetId }, 'periodic refresh not (un)scheduled; workers redo it at start'),
      );
  }
}
