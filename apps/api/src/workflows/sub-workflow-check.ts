import { MAX_WORKFLOW_DEPTH, nodeReferencesOf, type NodeRegistry, type WorkflowCatalog, type WorkflowDefinition } from '#workflow';
import type { WorkflowRepository } from '#workflow/nest';
import type { ProblemDetail } from '../common/api-errors.js';

export interface SubWorkflowScope {
  /** The workflow being saved (a new version of it); absent for a new workflow. */
  selfId?: string;
  /** The workflows a limited key may run; a call of another reads as an unknown workflow. Absent = all. */
  runnable?: readonly string[] | null;
}

/** The version a `workflow` node calls: its pinned one, else the latest. */
async function calledVersion(workflows: WorkflowRepository, id: string, version: number | undefined) {
  const workflow = await workflows.findLive(id);
  if (!workflow) return undefined;
  return workflows.findVersion(id, version ?? workflow.latestVersion);
}

/** The called workflows as a save sees them (for the `workflow` node's types): those the key may not run read as absent. */
export function workflowCatalogFor(workflows: WorkflowRepository, scope: SubWorkflowScope): WorkflowCatalog {
  return {
    definitionOf: async (id, version) =>
      scope.runnable && !scope.runnable.includes(id) ? undefined : (await calledVersion(workflows, id, version))?.definition,
  };
}

/** The workflows a definition's nodes call (with their pinned version, if any). */
function calls(registry: NodeRegistry, definition: WorkflowDefinition) {
  return nodeReferencesOf(registry, definition.nodes).filter((reference) => reference.kind === 'workflow');
}

/**
 * What `workflow` nodes call, checked at save: the workflow (and version) exists and the key may
 * run it; the saved workflow is not called again down the chain of versions it calls (a cycle
 * that is visible now: the versions called are the pinned ones, or the latest today), looked at
 * MAX_WORKFLOW_DEPTH levels deep — deeper chains fail at run time with WORKFLOW_DEPTH_EXCEEDED.
 */
export async function subWorkflowProblems(
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  workflows: WorkflowRepository,
  scope: SubWorkflowScope,
): Promise<ProblemDetail[]> {
  const problems: ProblemDetail[] = [];
  for (const call of calls(registry, definition)) {
    if (call.id === scope.selfId) {
      problems.push({ path: call.path, code: 'CYCLE', message: 'a workflow cannot call itself' });
      continue;
    }
    const called = scope.runnable && !scope.runnable.includes(call.id) ? undefined : await calledVersion(workflows, call.id, call.version);
    if (!called) {
      const what = call.version === undefined ? `workflow "${call.id}"` : `version ${call.version} of workflow "${call.id}"`;
      problems.push({ path: call.path, code: 'UNKNOWN_WORKFLOW', message: `${what} does not exist` });
      continue;
    }
    if (scope.selfId && (await callsBack(registry, workflows, called.definition, scope.selfId, 1))) {
      problems.push({
        path: call.path,
        code: 'CYCLE',
        message: `workflow "${call.id}" calls this workflow back (directly or through others)`,
      });
    }
  }
  return problems;
}

/** The definition with the version of every called workflow that has none pinned: its latest now (a new version of it later changes nothing here). */
export async function pinCalledVersions(
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  workflows: WorkflowRepository,
): Promise<WorkflowDefinition> {
  const pinned = structuredClone(definition);
  // A `workflow` node in a map's body too: its versionPath is relative to the top-level node.
  for (const reference of calls(registry, pinned)) {
    const node = pinned.nodes[Number(/^\/nodes\/(\d+)/.exec(reference.path)?.[1])];
    if (!node || reference.version !== undefined || !reference.versionPath) continue;
    const latest = (await workflows.findLive(reference.id))?.latestVersion;
    if (latest !== undefined) setAt(node as unknown as Record<string, unknown>, reference.versionPath, latest);
  }
  return pinned;
}

/** Sets the value at a JSON pointer (`/config/version`) inside `target`, making the objects on the way. */
function setAt(target: Record<string, unknown>, pointer: string, value: unknown): void {
  const keys = pointer.split('/').slice(1);
  let current = target;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    current = (typeof next === 'object' && next !== null ? next : (current[key] = {})) as Record<string, unknown>;
  }
  current[keys[keys.length - 1]] = value;
}

async function callsBack(
  registry: NodeRegistry,
  workflows: WorkflowRepository,
  definition: WorkflowDefinition,
  selfId: string,
  depth: number,
): Promise<boolean> {
  if (depth > MAX_WORKFLOW_DEPTH) return false;
  for (const call of calls(registry, definition)) {
    if (call.id === selfId) return true;
    const called = await calledVersion(workflows, call.id, call.version);
    if (called && (await callsBack(registry, workflows, called.definition, selfId, depth + 1))) return true;
  }
  return false;
}
