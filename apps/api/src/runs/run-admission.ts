import { Injectable, Logger } from '@nestjs/common';
import {
  newStoredId,
  RunQueueProducer,
  RunRepository,
  toRunView,
  type NewRun,
  type RunRecord,
  type RunStreamEvent,
  type RunView,
} from '#workflow/nest';
import { ConflictError } from '../common/api-errors.js';
import { MAX_WAIT_MS } from './dto/run-requests.js';
import { isTerminal, RunWaiter, type RunWatch } from './run-waiter.js';

/** What the controller parsed beside the body: the `Idempotency-Key` header and `?wait`. */
export interface StartRunOptions {
  idempotencyKey?: string;
  waitMs?: number;
  /** Id of the API key asking (recorded as the run's `triggeredBy`). */
  triggeredBy?: string;
}

export interface StartedRun {
  /** 200 when `?wait` saw the run finish, else 202. */
  statusCode: 200 | 202;
  /** True when an earlier request with the same Idempotency-Key created the run. */
  replayed: boolean;
  run: RunView;
}

export interface RunRequest {
  workflowId: string;
  version: number;
  inputs: Record<string, unknown>;
  /** Sealed secret inputs (header templates' tokens); `inputs` holds `***` for them. */
  secretInputs?: string;
  requestHash?: string;
  retryOf?: string;
  replayOf?: string;
  /** Chosen by the caller when it writes something under the run's id before the run exists (a replay's copied records). */
  id?: NewRun['id'];
  /** What started it other than a REST call (a webhook delivery); absent = the API. */
  trigger?: NewRun['trigger'];
}

/** A run another entry point starts (a published MCP tool call), its inputs already checked. */
export interface LaunchRequest {
  workflowId: string;
  version: number;
  inputs: Record<string, unknown>;
  /** Sealed secret inputs; `inputs` holds `***` for them. */
  secretInputs?: string;
  trigger: NonNullable<NewRun['trigger']>;
  /** Id of the API key asking (the run's `triggeredBy`, as for REST runs). */
  triggeredBy?: string;
}

export interface LaunchedRun {
  run: RunView;
  /** Listening since before the insert; the caller closes it. */
  watch: RunWatch;
}

/**
 * Accepting a run once start or retry has decided what to run (SPEC §4): the run stored `queued`
 * (or the earlier run of the same Idempotency-Key), then enqueued, then answered — at once or,
 * with `?wait`, when it finishes. If Redis is unreachable the run is still accepted (202): it is
 * stored, and the worker's recovery sweep enqueues it once Redis is back.
 */
@Injectable()
export class RunAdmission {
  private readonly logger = new Logger(RunAdmission.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly queue: RunQueueProducer,
    private readonly waiter: RunWaiter,
  ) {}

  async accept(request: RunRequest, options: StartRunOptions): Promise<StartedRun> {
    const { idempotencyKey } = options;
    const waitMs = Math.min(options.waitMs ?? 0, MAX_WAIT_MS);
    // The id is chosen here so that `?wait` subscribes while the run is inserted, not after.
    const id = request.id ?? newStoredId();
    const early = waitMs > 0 ? this.waiter.watch(id) : undefined;
    const inserted = await this.runs
      .insert({ ...request, id, idempotencyKey, requestHash: idempotencyKey && request.requestHash, triggeredBy: options.triggeredBy })
      .catch((error: unknown) => {
        void early?.then((watch) => watch.close());
        throw error;
      });
    // Redis away, the run is still accepted: stored, the sweep enqueues it; the answer does not wait (202).
    let watch = await early?.catch(() => undefined);
    if (!inserted.created) {
      // An earlier request made the run (its own id): listen to that one instead.
      watch?.close();
      if (inserted.run.requestHash !== request.requestHash) {
        throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used for another request to this workflow');
      }
      watch = watch && (await this.waiter.watch(inserted.run.id).catch(() => undefined));
    }
    const runId = inserted.run.id;
    try {
      // A replay of a run still queued enqueues it too (the same job id: nothing is added when its job
      // exists). The earlier request may have stored the run and then failed before its enqueue (the
      // store's answer lost in an outage, answered 503): its retry puts the run in line at once,
      // instead of the recovery sweep finding it later and putting it at the back.
      if (inserted.created || inserted.run.status === 'queued') await this.enqueue(runId, inserted.run);
      return await this.answer(inserted.run, !inserted.created, watch, waitMs);
    } finally {
      watch?.close();
    }
  }

  /** Stores and enqueues a run like `accept`, watching it (every live event to `onEvent`) from before the insert. */
  async launch(request: LaunchRequest, onEvent?: (event: RunStreamEvent) => void): Promise<LaunchedRun> {
    const id = newStoredId();
    const watch = await this.waiter.watch(id, onEvent);
    try {
      const inserted = await this.runs.insert({ ...request, id });
      await this.enqueue(id, request);
      return { run: toRunView(inserted.run), watch };
    } catch (error) {
      watch.close();
      throw error;
    }
  }

  private async enqueue(runId: string, { workflowId, version }: Pick<RunRequest, 'workflowId' | 'version'>): Promise<void> {
    try {
      await this.queue.enqueue(runId, { workflowId, version });
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'run stored but not enqueued (Redis unreachable): the recovery sweep will enqueue it');
    }
  }

  private async answer(run: RunRecord, replayed: boolean, watch: RunWatch | undefined, waitMs: number): Promise<StartedRun> {
    const view = toRunView(run);
    // A run just created is known to be queued; a replayed one is read again (it may have moved on).
    const latest = watch ? ((await watch.until(waitMs, replayed ? undefined : view)) ?? view) : view;
    return { statusCode: isTerminal(latest) ? 200 : 202, replayed, run: latest };
  }
}
