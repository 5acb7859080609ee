import { Inject, Injectable, Logger } from '@nestjs/common';
import { compileSchema } from '#mcp';
import {
  openInputState,
  RunQueueProducer,
  RunRepository,
  SECRET_BOX,
  sealInputState,
  toRunView,
  type InputAnswerDoc,
  type RunView,
  type SecretBox,
} from '#workflow/nest';
import { ConflictError, InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import { dottedPathPointer } from '../common/zod-validation.js';
import type { RunInputBody } from './dto/run-requests.js';
import { RunEventsHub } from './run-events-hub.js';

/**
 * `POST /runs/:id/input`: the answer to the request a `waiting` run waits on. An `accept` answer
 * is checked against the request's schema (Ajv, the schema's own dialect); the answer is stored
 * sealed beside the earlier ones, the run goes back to `queued`, and a worker resumes it: the
 * waiting node's call is sent again with the answer (see docs/workflows-and-runs.md, "Pausing for input").
 */
@Injectable()
export class AnswerRunInput {
  private readonly logger = new Logger(AnswerRunInput.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly queue: RunQueueProducer,
    private readonly hub: RunEventsHub,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  /** `keyId`: the API key that answers, stored with the answer (an approval's `answeredBy`). */
  async execute(runId: string, body: RunInputBody, keyId?: string): Promise<RunView> {
    const run = await this.runs.findById(runId);
    if (!run) throw new NotFoundError('Run', runId);
    const request = run.status === 'waiting' ? toRunView(run).inputRequest : null;
    if (!request) throw new ConflictError('RUN_NOT_WAITING', `run ${runId} is ${run.status}, not waiting for input`);
    const who = { ...(keyId && { answeredBy: keyId }), answeredAt: new Date().toISOString() };
    const answer: InputAnswerDoc =
      body.action === 'accept' ? { action: 'accept', content: body.content ?? {}, ...who } : { action: body.action, ...who };
    if (answer.action === 'accept') this.check(request.requestedSchema, answer.content);
    const state = openInputState(this.box, run.inputState);
    const node = state.nodes[request.nodeId] ?? { answers: [] };
    state.nodes[request.nodeId] = { ...node, answers: [...node.answers, answer] };
    const resumed = await this.runs.answerInput(run, sealInputState(this.box, state));
    if (!resumed) throw new ConflictError('RUN_NOT_WAITING', `run ${runId} was answered or canceled meanwhile`);
    await this.enqueue(runId, String(resumed.workflowId), resumed.version);
    const view = toRunView(resumed);
    this.logger.log({ runId, nodeId: request.nodeId, action: answer.action, keyId }, 'input answered: run queued again');
    return view;
  }

  private check(schema: Record<string, unknown> | boolean, content: unknown): void {
    const compiled = compileSchema(schema);
    // A schema Ajv cannot compile was the server's mistake; the tool sees the answer and judges it.
    if (!compiled.ok) return;
    const problems = compiled.validate(content);
    if (problems.length === 0) return;
    const errors = problems.map((problem) => ({
      path: dottedPathPointer('content', problem.path),
      code: 'INPUT_INVALID',
      message: problem.message,
    }));
    throw new InvalidRequestError(errors, 'The answer does not match the requested schema');
  }

  /** The finished job of the run's last claim is gone (removeOnComplete); if not yet, the recovery sweep enqueues the run. */
  private async enqueue(runId: string, workflowId: string, version: number): Promise<void> {
    try {
      await this.queue.removeJob(runId).catch(() => undefined);
      await this.queue.enqueue(runId, { workflowId, version });
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'answered run not enqueued (Redis unreachable): the recovery sweep will enqueue it');
    }
  }
}
