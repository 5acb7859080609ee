import { McpErrorCode } from '#mcp';
import {
  ENGINE_ERROR_CODES,
  EngineError,
  runSubject,
  type AuthorizationRequest,
  type RunPauses,
  type RunSubject,
  type WorkflowDefinition,
} from '#workflow';
import type { RunRecord, ToolsetConnection, ToolsetOAuth } from '#workflow/nest';

/** What an answer to the wait may be: `decline` or `cancel` gives up, `accept` asks for a fresh URL. */
const GIVES_UP = new Set(['decline', 'cancel']);

/**
 * Per-user OAuth toolsets (`auth.perUser`) in one run: the run's end-user subject, whose grant
 * their connections use, and the wait for that subject's authorization. A call that finds no
 * usable grant for the subject (MCP_AUTH_REQUIRED) does not fail the node: an authorization is
 * started for that subject, bound to this run and node, and the node waits (the run `waiting`,
 * the URL in its input request) until the callback stores the subject's tokens and requeues the
 * run, or the URL expires (then the node fails MCP_AUTH_REQUIRED), or someone answers the wait
 * with `decline` (fails the same way).
 */
export class RunAuthorizations {
  private resolved?: Promise<RunSubject>;

  constructor(
    private readonly runId: string,
    private readonly taken: Promise<RunRecord | undefined>,
    private readonly definition: Promise<WorkflowDefinition | undefined>,
    private readonly connectionOf: (toolsetId: string) => Promise<ToolsetConnection | undefined>,
    private readonly oauth: Pick<ToolsetOAuth, 'begin'>,
    private readonly pauses: RunPauses,
    private readonly now: () => number = Date.now,
  ) {}

  /** The subject whose grant per-user toolsets use in this run; MCP_AUTH_REQUIRED when the run has none. */
  async subject(): Promise<string> {
    this.resolved ??= Promise.all([this.taken, this.definition]).then(([run, workflow]) =>
      run ? runSubject(workflow?.inputSchema, run.inputs, run.triggeredBy) : { problem: 'the run is not held by this worker' },
    );
    const resolved = await this.resolved;
    if ('problem' in resolved) throw new EngineError(McpErrorCode.AUTH_REQUIRED, `OAuth (perUser toolset): ${resolved.problem}`);
    return resolved.subject;
  }

  /**
   * After a call of `toolsetId` by `nodeId` failed with MCP_AUTH_REQUIRED: the error that makes
   * the node wait for its subject's authorization, or fails it for good (expired, declined);
   * undefined when the toolset is not per-user (the failure stands as it is).
   */
  async waitFor(toolsetId: string, tool: string, nodeId: string): Promise<EngineError | undefined> {
    const connection = await this.connectionOf(toolsetId);
    if (!connection || connection.kind === 'stdio' || connection.auth?.perUser !== true) return undefined;
    const subject = await this.subject();
    const earlier = await this.pauses.stateOf(nodeId);
    if (earlier?.answer && GIVES_UP.has(earlier.answer.action))
      return new EngineError(McpErrorCode.AUTH_REQUIRED, `OAuth: the authorization of toolset ${toolsetId} for ${subject} was declined`);
    if (earlier?.resumeAt !== undefined && this.now() >= earlier.resumeAt)
      return new EngineError(
        McpErrorCode.AUTH_REQUIRED,
        `OAuth: nobody authorized toolset ${toolsetId} for ${subject} before the authorization URL expired (start the run again)`,
      );
    const run = await this.taken;
    const started = await this.oauth.begin(toolsetId, connection.url, connection.auth, run?.triggeredBy ?? null, {
      subject,
      run: { runId: this.runId, nodeId },
    });
    const authorization: AuthorizationRequest = {
      toolsetId,
      subject,
      url: started.authorizationUrl,
      expiresAt: started.expiresAt.toISOString(),
    };
    const message = `Toolset ${toolsetId} needs ${subject}'s OAuth authorization: open inputRequest.authorization.url; the run resumes once it is granted`;
    const requestedSchema = { type: 'object' };
    this.pauses.request(nodeId, { message, requestedSchema, resumeAt: started.expiresAt.getTime(), authorization });
    return new EngineError(ENGINE_ERROR_CODES.inputRequired, message, {
      details: { toolsetId, tool, inputRequest: { message, requestedSchema }, authorization, resumeAt: authorization.expiresAt },
    });
  }
}
