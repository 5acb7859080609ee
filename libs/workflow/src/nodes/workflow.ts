import { ENGINE_ERROR_CODES, EngineError } from '../engine/errors.js';
import { FINISHED_RUN_STATUSES, type RunStatus } from '../engine/statuses.js';
import { END_NODE_TYPE } from '../engine/graph.js';
import type {
  NodeDefinition,
  NodeExecutor,
  NodeReference,
  NodeValidationContext,
  TypedField,
  ValidationIssue,
  WorkflowDefinition,
} from '../engine/types.js';
import { fieldsOfObjectSchema } from '../engine/value-types.js';
import { pausesOf } from './pause.js';

/** Runs above a top-level run in a chain of sub-workflows at most (the run fails with WORKFLOW_DEPTH_EXCEEDED beyond). */
export const MAX_WORKFLOW_DEPTH = 5;
/** A parent re-checks its child this often even if the child's end did not wake it (a lost wake costs no more than this). */
export const CHILD_RECHECK_MS = 60_000;
/** Where the host puts its ChildRuns port in `services.extras`. */
export const CHILD_RUNS_EXTRA = 'childRuns';

/** A child run as its parent's node sees it. */
export interface ChildRun {
  runId: string;
  version: number;
  status: RunStatus;
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string };
}

export interface ChildRunRequest {
  parentRunId: string;
  /** The calling node as the parent run names it (`each[3]/call` in a map's body: one child per item). */
  nodeId: string;
  workflowId: string;
  /** Absent: the latest version when the child starts. */
  version?: number;
  inputs: Record<string, unknown>;
}

/**
 * Port: starts the child run of a `workflow` node, or finds the one this node started before (a
 * parent resumed after a crash starts no second child). Throws an EngineError with a code
 * (unknown workflow, inputs that do not fit its inputSchema, WORKFLOW_DEPTH_EXCEEDED).
 */
export interface ChildRuns {
  start(request: ChildRunRequest): Promise<ChildRun>;
}

const FINISHED = new Set<RunStatus>(FINISHED_RUN_STATUSES);

function configOf(node: NodeDefinition): { workflowId?: unknown; version?: unknown } {
  return (node.config ?? {}) as { workflowId?: unknown; version?: unknown };
}

/** The definition the node calls (its pinned version, else the latest), when the host can tell. */
async function calledDefinition({ node, workflows }: NodeValidationContext): Promise<WorkflowDefinition | undefined> {
  const { workflowId, version } = configOf(node);
  if (typeof workflowId !== 'string' || !workflows) return undefined;
  return workflows.definitionOf(workflowId, Number.isInteger(version) ? (version as number) : undefined);
}

/** The outputs a called workflow gives: the keys of its `end` nodes' inputs (each of any type). */
function endOutputsOf(definition: WorkflowDefinition): TypedField[] {
  const keys = new Set(definition.nodes.filter((node) => node.type === END_NODE_TYPE).flatMap((node) => Object.keys(node.inputs ?? {})));
  return [...keys].map((key) => ({ key, label: key, valueType: 'any', required: false, schema: {} }));
}

/**
 * Calls another workflow: its run is a run of its own (`parentRunId` links it), started with this
 * node's inputs as its run inputs; this run waits for it holding no worker (the node pauses the
 * run like an approval) and goes on with the child's `end` outputs as this node's outputs. The
 * child's failure is this node's (`catchError` takes it). The host wakes the parent when the
 * child ends, and the node re-checks every CHILD_RECHECK_MS anyway.
 */
export const workflowNode: NodeExecutor = {
  type: 'workflow',
  describeType: () => ({
    title: 'Sub-workflow',
    description:
      "Runs another workflow as a run of its own (linked by parentRunId) with this node's inputs as its inputs; outputs: the child's end outputs.",
    configSchema: {
      type: 'object',
      properties: {
        workflowId: { type: 'string', minLength: 1, description: 'the workflow to call' },
        version: { type: 'integer', minimum: 1, description: 'a version of it; default the latest when the child starts' },
      },
      required: ['workflowId'],
      additionalProperties: false,
    },
    handles: ['out'],
  }),
  validate: async ({ node, nodePath }) => {
    const { workflowId, version } = configOf(node);
    const issues: ValidationIssue[] = [];
    if (typeof workflowId !== 'string' || workflowId.length === 0) {
      issues.push({ path: `${nodePath}/config/workflowId`, code: 'INVALID_CONFIG', message: 'workflow needs config.workflowId' });
    }
    if (version !== undefined && (!Number.isInteger(version) || (version as number) < 1)) {
      issues.push({ path: `${nodePath}/config/version`, code: 'INVALID_CONFIG', message: 'version must be an integer from 1' });
    }
    return issues;
  },
  // Typed by the called workflow: its inputSchema types this node's inputs (a required run input
  // left unmapped is a save-time problem), and its end nodes name this node's outputs.
  describeInputs: async (context) => {
    const called = await calledDefinition(context);
    return called ? fieldsOfObjectSchema(called.inputSchema) : undefined;
  },
  describeOutputs: async (context) => {
    const called = await calledDefinition(context);
    return called ? endOutputsOf(called) : undefined;
  },
  references: (node): NodeReference[] => {
    const { workflowId, version } = configOf(node);
    if (typeof workflowId !== 'string') return [];
    const pinned = Number.isInteger(version) ? { version: version as number } : {};
    return [{ kind: 'workflow', id: workflowId, path: '/config/workflowId', versionPath: '/config/version', ...pinned }];
  },
  execute: async ({ runId, node, nodeKey, inputs, services }) => {
    const childRuns = services.extras?.[CHILD_RUNS_EXTRA] as ChildRuns | undefined;
    if (!childRuns) throw new EngineError(ENGINE_ERROR_CODES.nodeExecutionFailed, 'workflow nodes need a host that can start runs');
    const pauses = pausesOf(services, 'workflow');
    const { workflowId, version } = configOf(node);
    const child = await childRuns.start({
      parentRunId: runId,
      // In a map's body, one child per item: `each[3]/call` (the key of the child's idempotency).
      nodeId: nodeKey ?? node.id,
      workflowId: String(workflowId),
      ...(typeof version === 'number' && { version }),
      inputs,
    });
    const details = { childRunId: child.runId, childVersion: child.version, childStatus: child.status };
    if (child.status === 'succeeded') return { outputs: child.outputs ?? {}, details };
    if (FINISHED.has(child.status)) {
      const cause = child.error ?? { code: ENGINE_ERROR_CODES.nodeExecutionFailed, message: 'no error recorded' };
      throw new EngineError(cause.code, `child run ${child.runId} ${child.status}: ${cause.message}`, { details });
    }
    const resumeAt = services.clock.now() + CHILD_RECHECK_MS;
    const message = `waiting for child run ${child.runId}`;
    const requestedSchema = { type: 'object' };
    pauses.request(node.id, { message, requestedSchema, resumeAt });
    throw new EngineError(ENGINE_ERROR_CODES.inputRequired, message, {
      details: { ...details, inputRequest: { message, requestedSchema }, resumeAt: new Date(resumeAt).toISOString() },
    });
  },
};
