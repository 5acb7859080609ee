import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpClientPool, type McpTarget, type PooledSession } from '#mcp';
import { toolsetsToConnectAhead, type NodeRegistry, type NodeSecrets, type WorkflowDefinition } from '#workflow';
import {
  APP_CONFIG,
  NODE_REGISTRY,
  openConfigSecrets,
  openInputState,
  SECRET_BOX,
  sealInputState,
  ToolsetRefreshRequests,
  ToolsetSnapshots,
  ToolsetOAuth,
  ToolsetTargets,
  WorkflowRepository,
  Metrics,
  type AppConfig,
  type RunRecord,
  type SecretBox,
  type ToolsetConnection,
} from '#workflow/nest';
import { RunAuthorizations } from './run-authorizations.js';
import { RunInput } from './run-input.js';
import { RunSessions, type SessionRecorder } from './run-sessions.js';
import { PooledToolInvoker, RunToolsets, type CallOutcome } from './run-tools.js';
import { SharedStdioServers } from './shared-stdio-servers.js';
import { UsageRecords } from './usage-records.js';

/** What a run executes. */
export interface RunPlan {
  workflowId: string;
  version: number;
}

/**
 * One run's means, set up from its plan: the workflow version (cached: versions are immutable),
 * its toolsets (one read each), its MCP client pool and the engine's ToolInvoker over it — and,
 * at once, sessions with the servers the run will call for sure (the node types' `connectsAhead`),
 * so that connecting overlaps with claiming the run and writing its first nodes instead of following them.
 */
export class PreparedRun {
  readonly definition: Promise<WorkflowDefinition | undefined>;

  constructor(
    readonly plan: RunPlan,
    definition: Promise<WorkflowDefinition | undefined>,
    readonly toolsets: RunToolsets,
    readonly pool: McpClientPool,
    readonly invoker: PooledToolInvoker,
    private readonly recorder: SessionRecorder,
    registry: NodeRegistry,
    /** Answers for `pause` nodes, and the requests deferred during this claim. */
    readonly input: RunInput,
    /** The run's secret inputs, opened on first use (header templates of toolsets and `http` nodes). */
    readonly secretInputs: () => Promise<Record<string, unknown>>,
    /** The version's sealed config values (`http` headers), opened per node and origin when a node asks, once the run is ours. */
    readonly nodeSecrets: NodeSecrets,
  ) {
    this.definition = definition;
    // Failures surface where the executor awaits the definition or a node calls its tool.
    definition.catch(() => undefined);
    void definition
      .then(
        (workflow) =>
          workflow && Promise.all(toolsetsToConnectAhead(registry, workflow).map((toolsetId) => invoker.connectAhead(toolsetId))),
      )
      .catch(() => undefined);
  }

  /** Whether the claimed run is the one this was prepared for (the job's plan is only a hint). */
  matches(run: RunRecord): boolean {
    return run.workflowId === this.plan.workflowId && run.version === this.plan.version;
  }

  /** Ends every session of the run (pending connects included). */
  close(): Promise<void> {
    return this.pool.closeAll();
  }

  /** After close and the run's terminal (or hand-back) write: drops the session records this claim wrote. Never throws. */
  forgetSessions(): Promise<void> {
    return this.recorder.forgetRecorded();
  }
}

@Injectable()
export class RunPreparer {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly workflows: WorkflowRepository,
    private readonly snapshots: ToolsetSnapshots,
    private readonly targets: ToolsetTargets,
    private readonly sessions: RunSessions,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    private readonly oauth: ToolsetOAuth,
    @Optional() private readonly sharedStdio?: SharedStdioServers,
    @Optional() private readonly usage?: UsageRecords,
    @Optional() private readonly refreshes?: ToolsetRefreshRequests,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /**
   * `taken` resolves with the run once this worker holds it (claimed, an earlier attempt's
   * sessions ended), or undefined: sessions go on record only then, since a record must not
   * reach a run this worker does not hold, nor race the claim's own write.
   */
  prepare(runId: string, plan: RunPlan, taken: Promise<RunRecord | undefined>): PreparedRun {
    // Header templates need the run's secret inputs: only known once the run is ours, and opened only then.
    let secrets: Promise<Record<string, unknown>> | undefined;
    const secretInputs = () =>
      (secrets ??= taken.then((run) =>
        run?.secretInputs ? (JSON.parse(this.box.open(run.secretInputs)) as Record<string, unknown>) : {},
      ));
    const input = new RunInput(
      async () => openInputState(this.box, (await taken)?.inputState),
      (state) => sealInputState(this.box, state),
    );
    const version = this.workflows.findVersion(plan.workflowId, plan.version);
    const definition = version.then((found) => found?.definition);
    const connectionOf = async (toolsetId: string): Promise<ToolsetConnection | undefined> => (await toolsets.load(toolsetId))?.connection;
    const authorizations = new RunAuthorizations(runId, taken, definition, connectionOf, this.oauth, input);
    const toolsets: RunToolsets = new RunToolsets(this.snapshots, this.targets, secretInputs, () => authorizations.subject());
    const recorder = this.sessions.recorder(runId, toolsets);
    const onSessionOpened = async (session: PooledSession): Promise<void> => {
      // A session opened ahead of the claim is refused (the pool closes it) if the run is not ours.
      if (!(await taken)) throw new Error(`run ${runId} is not held by this worker: its MCP session is not kept`);
      await recorder.onSessionOpened(session);
    };
    const refreshes = this.refreshes;
    const onToolsListChanged = (target: McpTarget) => {
      const toolsetId = toolsets.toolsetOf(target);
      if (toolsetId) refreshes?.request(toolsetId);
    };
    // Declares the elicitation capability; each call answers with its node's policy (declining by default).
    const pool = new McpClientPool({ onSessionOpened, onElicitation: async () => ({ action: 'decline' }), onToolsListChanged });
    this.metrics?.holdSessions(pool);
    const servers = this.sharedStdio;
    const shared = servers && {
      isShared: (toolsetId: string) => toolsets.sharedProcess(toolsetId),
      acquire: (toolsetId: string, target: McpTarget) => servers.acquire(toolsetId, target),
    };
    // Usage is a by-product: written in batches without holding the run up, and a failed write never fails it.
    const onCall = (call: CallOutcome) => {
      this.metrics?.mcpCall(call, 'run');
      this.usage?.record({ ...call, source: 'run', runId: runId });
    };
    const invoker = new PooledToolInvoker(
      pool,
      recorder.targets,
      toolsets,
      this.config.limits.callTimeoutMs,
      shared,
      onCall,
      input,
      authorizations,
    );
    const nodeSecrets: NodeSecrets = async (nodeId, targetUrl) =>
      (await taken) ? openConfigSecrets((await version)?.secrets ?? [], this.box)(nodeId, targetUrl) : {};
    return new PreparedRun(plan, definition, toolsets, pool, invoker, recorder, this.registry, input, secretInputs, nodeSecrets);
  }
}
