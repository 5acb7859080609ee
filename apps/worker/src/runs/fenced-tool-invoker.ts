import {
  ENGINE_ERROR_CODES,
  EngineError,
  type ExecutionRecord,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolInvoker,
} from '#workflow';
import { StaleClaimError, type RunJournal } from '#workflow/nest';

/**
 * The run's ToolInvoker under its claim: before a call is sent, a `call` marker with the call's
 * idempotency key goes into the journal (a fenced write: a claim that lost the run stops here,
 * `onStale`, before calling anything), and the key travels in the MCP request's `_meta`. A call
 * that an earlier claim marked and left no outcome of is in doubt: sent again only when the node
 * said it may be (`mayRepeat`: its retry policy or the tool's `idempotentHint`), else the node
 * fails with MCP_CALL_IN_DOUBT, which `catchError` can route. The doubt is about a node's first
 * call after a takeover; its further calls (retries, an agent's next tools) are this claim's own.
 */
export class FencedToolInvoker implements ToolInvoker {
  private readonly called = new Set<string>();

  constructor(
    private readonly inner: ToolInvoker,
    private readonly journal: RunJournal,
    private readonly onStale: () => void,
    /** Records the engine deferred: they ride on the call's marker (one insert). */
    private readonly takePending: () => ExecutionRecord[] = () => [],
  ) {}

  async callTool(request: ToolCallRequest): Promise<ToolCallResult> {
    const nodeId = request.nodeId ?? '';
    const key = this.journal.callKey(nodeId);
    if (!this.called.has(key) && this.journal.inDoubt(nodeId) && request.mayRepeat !== true) {
      throw new EngineError(
        ENGINE_ERROR_CODES.mcpCallInDoubt,
        `tool "${request.tool}" may already have run: an earlier execution of this run was about to call it and left no outcome, ` +
          'and the node does not allow a resend (no retry policy, tool not marked idempotentHint)',
        { details: { toolsetId: request.toolsetId, tool: request.tool, idempotencyKey: key } },
      );
    }
    this.called.add(key);
    try {
      await this.journal.markCall(nodeId, key, this.takePending());
    } catch (error) {
      if (error instanceof StaleClaimError) this.onStale();
      throw error;
    }
    return this.inner.callTool({ ...request, idempotencyKey: key });
  }
}
