import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  APP_CONFIG,
  inputsFit,
  openedInputs,
  RunQueueProducer,
  RunRepository,
  ScheduleQueue,
  ScheduleRepository,
  SECRET_BOX,
  splitSecretInputs,
  TriggerRunsRepository,
  withInputDefaults,
  WorkflowRepository,
  type AppConfig,
  type FiringOutcome,
  type SecretBox,
} from '#workflow/nest';

/** One firing as BullMQ hands it over: which schedule, the time it was due, the time a worker took it. */
export interface Firing {
  scheduleId: string;
  dueAt: Date;
  takenAt: Date;
}

/**
 * What one firing of a schedule does; at most one run per firing. The run's idempotency key is
 * the schedule and the firing's due time, so the same firing taken twice (a worker killed after
 * the insert, the job retried or stalled back) finds the run it made instead of making another.
 * Rules, in order: a deleted or disabled schedule (or deleted workflow) starts nothing; with
 * `catchUp: "none"` a firing taken more than SCHEDULE_CATCH_UP_GRACE_MS late was missed; with
 * `overlap: "skip"` a firing while an earlier run of the schedule is unfinished starts nothing;
 * inputs that no longer fit the version's inputSchema start nothing (`invalid`).
 */
@Injectable()
export class ScheduleFiring {
  private readonly logger = new Logger(ScheduleFiring.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    private readonly schedules: ScheduleRepository,
    private readonly scheduleQueue: ScheduleQueue,
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunRepository,
    private readonly triggerRuns: TriggerRunsRepository,
    private readonly runQueue: RunQueueProducer,
  ) {}

  async fire(firing: Firing): Promise<FiringOutcome> {
    const schedule = await this.schedules.findById(firing.scheduleId);
    const workflow = schedule && (await this.workflows.findLive(schedule.workflowId));
    if (!schedule || !workflow) {
      // Its schedule or workflow is gone while its job scheduler lived on (Redis away at the delete): it fires no more.
      await this.scheduleQueue.remove(firing.scheduleId);
      return 'disabled';
    }
    if (!schedule.enabled) return 'disabled';
    if (schedule.catchUp === 'none' && firing.takenAt.getTime() - firing.dueAt.getTime() > this.config.triggers.catchUpGraceMs)
      return 'missed';
    if (schedule.overlap === 'skip' && (await this.triggerRuns.hasUnfinished(schedule.id))) return 'overlap';
    const versionNumber = schedule.version ?? workflow.latestVersion;
    const version = await this.workflows.findVersion(schedule.workflowId, versionNumber);
    const schema = version?.definition.inputSchema;
    const inputs = withInputDefaults(schema, openedInputs(schedule, this.box));
    if (!version || !inputsFit(schema, inputs)) {
      this.logger.warn({ scheduleId: schedule.id, version: versionNumber }, 'schedule firing skipped: its inputs do not fit the version');
      return 'invalid';
    }
    const { shown, secrets } = splitSecretInputs(schema, inputs);
    const inserted = await this.runs.insert({
      workflowId: schedule.workflowId,
      version: versionNumber,
      inputs: shown,
      ...(Object.keys(secrets).length > 0 && { secretInputs: this.box.seal(JSON.stringify(secrets)) }),
      idempotencyKey: `schedule:${schedule.id}:${firing.dueAt.getTime()}`,
      trigger: { source: 'schedule', scheduleId: schedule.id, scheduledFor: firing.dueAt },
    });
    // Enqueued again when found queued: the job id is the run's, so a run already on the queue is not added twice.
    if (inserted.run.status === 'queued')
      await this.runQueue.enqueue(inserted.run.id, { workflowId: schedule.workflowId, version: versionNumber });
    return inserted.created ? 'started' : 'repeated';
  }
}
