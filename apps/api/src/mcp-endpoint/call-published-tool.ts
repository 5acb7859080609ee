import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import {
  APP_CONFIG,
  SECRET_BOX,
  splitSecretInputs,
  type AppConfig,
  type McpServerRecord,
  type RunStreamEvent,
  type RunView,
  type SecretBox,
} from '#workflow/nest';
import { CancelRun } from '../runs/cancel-run.js';
import { runInputProblems, withDefaults } from '../runs/run-inputs.js';
import { RunAdmission } from '../runs/run-admission.js';
import { isTerminal, RunWaiter } from '../runs/run-waiter.js';
import type { Continuation } from './authorization-rounds.js';
import type { McpCaller } from './mcp-callers.js';
import { awaitedAuthorization, PassOnAuthorization, waitOrAbort, type AuthorizationPrompt } from './pass-on-authorization.js';
import { PublishedCatalog } from './published-catalog.js';
import { OUTSIDE_GRANT, ReferenceGrants } from '../workflows/reference-grants.js';

/** Where a result names its run (`_meta` keys outside the reserved `io.modelcontextprotocol/` prefix). */
export const RUN_ID_META = 'mcpflow/runId';

/** Beyond the run deadline the worker fails the run; this margin covers the worker noticing it. */
const DEADLINE_MARGIN_MS = 60_000;

export interface ToolCallRequest {
  server: McpServerRecord;
  caller: McpCaller;
  name: string;
  arguments: Record<string, unknown> | undefined;
  progressToken?: string | number;
  signal: AbortSignal;
  /** Sends a notification related to this call (progress). */
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
  /**
   * Whether the abort of `signal` is the client cancelling the call (→ the run is canceled) rather
   * than a connection that went away (→ the run goes on; its id is in the logs and the progress).
   */
  abortMeansCancel(reason: unknown): boolean;
  /**
   * Told the run id before anything waits on it (cancel routing for sessions on other processes);
   * true when the client's cancel arrived before it (the run is then canceled at once).
   */
  onRunStarted?(runId: string): Promise<boolean>;
  onRunEnded?(runId: string): Promise<void>;
  /** A 2026-07-28 retry of a call whose first round answered `input_required` (authorization-rounds.ts). */
  continuation?: Continuation;
  /** How a run waiting for its end user's OAuth authorization is passed on to this client (asked only then). */
  authorizationPrompt(): Promise<AuthorizationPrompt>;
}

function toolError(text: string, runId?: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(runId && { _meta: { [RUN_ID_META]: runId } }) };
}

function resultOf(run: RunView): CallToolResult {
  const meta = { [RUN_ID_META]: run.id };
  if (run.status === 'succeeded') {
    const outputs = run.outputs ?? {};
    return { content: [{ type: 'text', text: JSON.stringify(outputs) }], structuredContent: outputs, _meta: meta };
  }
  if (run.status === 'canceled') return toolError(`RUN_CANCELED: run ${run.id} was canceled`, run.id);
  if (run.status === 'failed') {
    const error = run.error ?? { code: 'RUN_FAILED', message: 'the run failed' };
    return toolError(`${error.code}: ${error.message} (run ${run.id}${error.nodeId ? `, node ${error.nodeId}` : ''})`, run.id);
  }
  const authorization = awaitedAuthorization(run);
  if (authorization) {
    // A per-user OAuth toolset waits for its end user: the URL is theirs to open, so the caller gets it.
    return toolError(
      `RUN_STILL_RUNNING: run ${run.id} is waiting for ${authorization.subject}'s OAuth authorization: open ${authorization.url} ` +
        `(good once, until ${authorization.expiresAt}); the run resumes then, and GET /runs/${run.id} will have its result`,
      run.id,
    );
  }
  return toolError(`RUN_STILL_RUNNING: run ${run.id} is still ${run.status}; GET /runs/${run.id} will have its result`, run.id);
}

/**
 * `tools/call` on a published server: the arguments are checked against the workflow's
 * `inputSchema` (a problem is a tool error naming its path), then the call is a real run through
 * the queue and the worker, awaited through the run events (any API process sees them).
 */
@Injectable()
export class CallPublishedTool {
  private readonly logger = new Logger(CallPublishedTool.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    private readonly catalog: PublishedCatalog,
    private readonly admission: RunAdmission,
    private readonly canceler: CancelRun,
    private readonly grants: ReferenceGrants,
    private readonly authorizations: PassOnAuthorization,
    private readonly waiter: RunWaiter,
  ) {}

  async execute(call: ToolCallRequest): Promise<CallToolResult | InputRequiredResult> {
    if (call.continuation) return this.continueRun(call, call.continuation);
    const published = await this.catalog.tool(call.server, call.name, call.caller.workflows);
    if (!published) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${call.name}`);
    // The rule of POST /workflows/:id/runs: a workflow-limited key does not run what it could not have chosen.
    if (await this.grants.runOutsideGrant(call.caller, published.workflowId, published.definition))
      return toolError(`FORBIDDEN: ${OUTSIDE_GRANT}`);
    const schema = published.definition.inputSchema;
    const inputs = withDefaults(schema, call.arguments ?? {});
    const problems = runInputProblems(schema, inputs, 'arguments');
    if (problems.length) {
      return toolError(
        `Invalid arguments for tool ${call.name}:\n${problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n')}`,
      );
    }

    // Secret inputs (header templates' tokens) are sealed apart and shown as ***, as for REST runs.
    const { shown, secrets } = splitSecretInputs(schema, inputs);
    const secretInputs = Object.keys(secrets).length > 0 ? this.box.seal(JSON.stringify(secrets)) : undefined;
    const progress = new ProgressReporter(call, published.definition.nodes.length);
    const { run, watch } = await this.admission.launch(
      {
        workflowId: published.workflowId,
        version: published.version,
        inputs: shown,
        ...(secretInputs && { secretInputs }),
        trigger: { source: 'mcp', mcpServerId: call.server.id },
        triggeredBy: call.caller.keyId,
      },
      (event) => progress.onEvent(event),
    );
    this.logger.log(
      { runId: run.id, mcpServerId: call.server.id, tool: call.name, keyId: call.caller.keyId },
      'MCP tool call started a run',
    );
    try {
      if (await call.onRunStarted?.(run.id)) this.cancel(run.id, 'MCP client canceled the call before its run was recorded: canceling it');
      const deadline = Date.now() + this.config.limits.runDeadlineMs + DEADLINE_MARGIN_MS;
      let settled = await waitOrAbort(() => watch.until(deadline - Date.now(), run), call.signal);
      const authorization = settled && settled !== 'aborted' ? awaitedAuthorization(settled) : undefined;
      if (settled && settled !== 'aborted' && authorization) {
        const waiting = {
          prompt: await call.authorizationPrompt(),
          toolName: call.name,
          keyId: call.caller.keyId,
          signal: call.signal,
          deadline,
        };
        const passedOn = await this.authorizations.execute(settled, authorization, waiting, watch);
        if (isInputRequiredResult(passedOn)) return passedOn;
        settled = passedOn;
      }
      if (settled === 'aborted') return this.abandon(run.id, call);
      await progress.flushed();
      return resultOf(settled ?? run);
    } finally {
      watch.close();
      await call.onRunEnded?.(run.id);
    }
  }

  /**
   * A 2026-07-28 retry after an `input_required` round: the run that round started goes on (its
   * wait answered `decline` when the user declined), and the call answers once it finished.
   */
  private async continueRun(call: ToolCallRequest, continuation: Continuation): Promise<CallToolResult> {
    const { runId, outcome } = continuation;
    const progress = new ProgressReporter(call, 0);
    const watch = await this.waiter.watch(runId, (event) => progress.onEvent(event));
    try {
      if (outcome === 'decline' || outcome === 'cancel') await this.authorizations.decline(runId, call.caller.keyId);
      const limit = this.config.limits.runDeadlineMs + DEADLINE_MARGIN_MS;
      const settled = await waitOrAbort(() => watch.until(limit, undefined, isTerminal), call.signal);
      if (settled === 'aborted') return this.abandon(runId, call);
      await progress.flushed();
      return settled ? resultOf(settled) : toolError(`RUN_NOT_FOUND: run ${runId} is gone`, runId);
    } finally {
      watch.close();
    }
  }

  private cancel(runId: string, message: string): void {
    this.logger.log({ runId }, message);
    this.canceler
      .execute(runId)
      .catch((error: unknown) => this.logger.warn({ err: error, runId }, 'could not cancel the run of a canceled MCP call'));
  }

  /** The answer is not delivered (the SDK drops it): only the run's fate is decided here. */
  private abandon(runId: string, call: ToolCallRequest): CallToolResult {
    if (call.abortMeansCancel(call.signal.reason)) {
      this.cancel(runId, 'MCP client canceled the call: canceling its run');
      return toolError(`RUN_CANCELED: run ${runId} was canceled`, runId);
    }
    this.logger.warn({ runId, mcpServerId: call.server.id }, 'MCP client went away or timed out before the run ended: the run goes on');
    return toolError(`run ${runId} goes on without the client`, runId);
  }
}

/** One `notifications/progress` per finished node, in order, when the client sent a progressToken. */
class ProgressReporter {
  private finished = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly call: ToolCallRequest,
    private readonly total: number,
  ) {}

  onEvent(event: RunStreamEvent): void {
    const token = this.call.progressToken;
    if (token === undefined || event.type !== 'node.finished') return;
    this.finished += 1;
    const params = {
      progressToken: token,
      progress: this.finished,
      total: Math.max(this.total, this.finished),
      message: `run ${event.runId}: node ${event.item.nodeId} ${event.item.status}`,
    };
    this.chain = this.chain.then(() => this.call.notify({ method: 'notifications/progress', params })).catch(() => undefined);
  }

  /** Every progress notification is handed to the transport before the result. */
  flushed(): Promise<void> {
    return this.chain;
  }
}
