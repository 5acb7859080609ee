import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Types } from 'mongoose';
import { RunQueueProducer, RunRepository, toRunView, WorkflowRepository, type RunDoc, type RunView } from '#workflow';
import { ConflictError, InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import { parseRequest } from '../common/zod-validation.js';
import { idempotencyKeySchema, MAX_WAIT_MS, startRunBodySchema, waitQuerySchema } from './dto/run.dto.js';
import { runInputProblems, withDefaults } from './run-inputs.js';
import { isTerminal, RunWaiter, type RunWatch } from './run-waiter.js';

export interface StartRunOptions {
  idempotencyKey?: string;
  query?: Record<string, unknown>;
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

interface RunRequest {
  workflowId: string;
  version: number;
  inputs: Record<string, unknown>;
  requestHash?: string;
  retryOf?: string;
}

/**
 * Accepting runs (SPEC §4): inputs checked against the pinned version's `inputSchema`, the run
 * stored `queued`, then enqueued. If Redis is unreachable the run is still accepted (202): it is
 * stored, and the worker's recovery sweep enqueues it once Redis is back.
 */
@Injectable()
export class StartRunService {
  private readonly logger = new Logger(StartRunService.name);

  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunRepository,
    private readonly queue: RunQueueProducer,
    private readonly waiter: RunWaiter,
  ) {}

  async start(workflowId: string, body: unknown, options: StartRunOptions): Promise<StartedRun> {
    const request = parseRequest(startRunBodySchema, body);
    const workflow = await this.workflows.findLive(workflowId);
    if (!workflow) throw new NotFoundError('Workflow', workflowId);
    const versionNumber = request.version ?? workflow.latestVersion;
    const version = await this.workflows.findVersion(workflowId, versionNumber);
    if (!version) throw new NotFoundError('Workflow version', `${workflowId}/${versionNumber}`);
    const inputs = withDefaults(version.definition.inputSchema, request.inputs);
    const problems = runInputProblems(version.definition.inputSchema, inputs);
    if (problems.length > 0) throw new InvalidRequestError(problems, 'The run inputs do not match the workflow inputSchema');
    // The request as sent (not the resolved version), so a replay after a new PUT still matches.
    const requestHash = createHash('sha256').update(JSON.stringify([request.version ?? null, request.inputs])).digest('hex');
    return this.accept({ workflowId, version: versionNumber, inputs, requestHash }, options);
  }

  /** `POST /runs/:id/retry`: a new run of the same version with the same inputs. */
  async retry(runId: string, options: StartRunOptions): Promise<StartedRun> {
    const source = await this.runs.findById(runId);
    if (!source) throw new NotFoundError('Run', runId);
    if (!isTerminal(source)) throw new ConflictError('RUN_NOT_FINISHED', `run ${runId} is ${source.status}; only a finished run can be retried`);
    const workflowId = String(source.workflowId);
    if (!(await this.workflows.findLive(workflowId))) throw new NotFoundError('Workflow', workflowId);
    const { inputs } = toRunView(source);
    const requestHash = createHash('sha256').update(JSON.stringify(['retry', runId])).digest('hex');
    return this.accept({ workflowId, version: source.version, inputs, requestHash, retryOf: runId }, options);
  }

  private async accept(request: RunRequest, options: StartRunOptions): Promise<StartedRun> {
    const idempotencyKey = options.idempotencyKey === undefined ? undefined : parseRequest(idempotencyKeySchema, options.idempotencyKey, 'Idempotency-Key header');
    const waitMs = Math.min(parseRequest(waitQuerySchema, { wait: options.query?.wait }, 'query').wait ?? 0, MAX_WAIT_MS);
    // The id is chosen here so that `?wait` subscribes while the run is inserted, not after.
    const id = new Types.ObjectId();
    const early = waitMs > 0 ? this.waiter.watch(String(id)) : undefined;
    const inserted = await this.runs.insert({ ...request, id, idempotencyKey, requestHash: idempotencyKey && request.requestHash, triggeredBy: options.triggeredBy }).catch((error: unknown) => {
      void early?.then((watch) => watch.close());
      throw error;
    });
    let watch = await early;
    if (!inserted.created) {
      // An earlier request made the run (its own id): listen to that one instead.
      watch?.close();
      if (inserted.run.requestHash !== request.requestHash) {
        throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used for another request to this workflow');
      }
      watch = watch && (await this.waiter.watch(String(inserted.run._id)));
    }
    const runId = String(inserted.run._id);
    try {
      if (inserted.created) await this.enqueue(runId, request);
      return await this.answer(inserted.run, !inserted.created, watch, waitMs);
    } finally {
      watch?.close();
    }
  }

  private async enqueue(runId: string, { workflowId, version }: RunRequest): Promise<void> {
    try {
      await this.queue.enqueue(runId, { workflowId, version });
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'run stored but not enqueued (Redis unreachable): the recovery sweep will enqueue it');
    }
  }

  private async answer(run: RunDoc, replayed: boolean, watch: RunWatch | undefined, waitMs: number): Promise<StartedRun> {
    const view = toRunView(run);
    // A run just created is known to be queued; a replayed one is read again (it may have moved on).
    const latest = watch ? ((await watch.until(waitMs, replayed ? undefined : view)) ?? view) : view;
    return { statusCode: isTerminal(latest) ? 200 : 202, replayed, run: latest };
  }
}
