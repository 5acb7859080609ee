import { DEFAULT_HANDLE, ERROR_HANDLE, handleOf, START_NODE_TYPE, WorkflowGraph } from './graph.js';
import type { NodeRegistry } from './registry.js';
import type { NodeDefinition, ValidationIssue, WorkflowDefinition } from './types.js';

/** Ids end up inside references (`node.key`) and templates (`{{node.key}}`), so they stay plain. */
const NODE_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

function checkNodeOptions(node: NodeDefinition, path: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { retry, timeoutMs } = node;
  if (retry !== undefined) {
    const attemptsOk = Number.isInteger(retry?.maxAttempts) && retry.maxAttempts >= 1;
    const backoffOk = Number.isFinite(retry?.backoffMs) && retry.backoffMs >= 0;
    if (!attemptsOk || !backoffOk) {
      issues.push({ path: `${path}/retry`, code: 'INVALID_RETRY', message: 'retry needs an integer maxAttempts ≥ 1 and a backoffMs ≥ 0' });
    }
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    issues.push({ path: `${path}/timeoutMs`, code: 'INVALID_TIMEOUT', message: 'timeoutMs must be a positive number' });
  }
  if (typeof node.inputs !== 'object' || node.inputs === null || Array.isArray(node.inputs)) {
    issues.push({ path: `${path}/inputs`, code: 'INVALID_INPUTS', message: 'inputs must be an object of value sources' });
  }
  return issues;
}

function checkNodes(definition: WorkflowDefinition, registry: NodeRegistry): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const starts: number[] = [];
  definition.nodes.forEach((node, index) => {
    const path = `/nodes/${index}`;
    if (typeof node.id !== 'string' || !NODE_ID_PATTERN.test(node.id)) {
      issues.push({
        path: `${path}/id`,
        code: 'INVALID_NODE_ID',
        message: `node id ${JSON.stringify(node.id)} must be letters, digits, "_" or "-"`,
      });
    } else if (seen.has(node.id)) {
      issues.push({ path: `${path}/id`, code: 'DUPLICATE_NODE_ID', message: `node id "${node.id}" is used more than once` });
    }
    seen.add(node.id);
    if (!registry.get(node.type)) {
      issues.push({ path: `${path}/type`, code: 'UNKNOWN_NODE_TYPE', message: `unknown node type "${node.type}"` });
    }
    if (node.type === START_NODE_TYPE) starts.push(index);
    issues.push(...checkNodeOptions(node, path));
  });
  if (starts.length === 0) issues.push({ path: '/nodes', code: 'MISSING_START', message: 'a workflow needs one start node' });
  for (const index of starts.slice(1)) {
    issues.push({ path: `/nodes/${index}`, code: 'MULTIPLE_START', message: 'a workflow has exactly one start node' });
  }
  return issues;
}

function allowedHandles(node: NodeDefinition, registry: NodeRegistry): string[] | undefined {
  const executor = registry.get(node.type);
  if (!executor) return undefined;
  return executor.describeHandles?.(node) ?? [DEFAULT_HANDLE];
}

function checkEdges(definition: WorkflowDefinition, graph: WorkflowGraph, registry: NodeRegistry): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  definition.edges.forEach((edge, index) => {
    const path = `/edges/${index}`;
    const source = graph.node(edge.source);
    const target = graph.node(edge.target);
    if (!source) issues.push({ path: `${path}/source`, code: 'DANGLING_EDGE', message: `edge source "${edge.source}" is not a node` });
    if (!target) issues.push({ path: `${path}/target`, code: 'DANGLING_EDGE', message: `edge target "${edge.target}" is not a node` });
    if (target?.type === START_NODE_TYPE) {
      issues.push({ path: `${path}/target`, code: 'EDGE_INTO_START', message: 'the start node cannot have incoming edges' });
    }
    if (!source) return;
    const handle = handleOf(edge);
    if (handle === ERROR_HANDLE) {
      if (!source.catchError) {
        issues.push({
          path: `${path}/sourceHandle`,
          code: 'BAD_HANDLE',
          message: `the error handle of "${source.id}" needs catchError: true`,
        });
      }
      return;
    }
    const handles = allowedHandles(source, registry);
    if (handles && !handles.includes(handle)) {
      issues.push({
        path: `${path}/sourceHandle`,
        code: 'BAD_HANDLE',
        message: `node "${source.id}" has no handle "${handle}" (has: ${[...handles, ERROR_HANDLE].join(', ')})`,
      });
    }
  });
  return issues;
}

function checkReachability(graph: WorkflowGraph): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const cycle of graph.cycles()) {
    issues.push({ path: `/nodes/${graph.indexOf(cycle[0])}`, code: 'CYCLE', message: `nodes ${cycle.join(' → ')} form a cycle` });
  }
  const starts = graph.startNodes();
  if (starts.length === 0) return issues;
  const reachable = graph.reachableFrom(starts[0].id);
  for (const id of graph.nodeIds()) {
    if (!reachable.has(id)) {
      issues.push({
        path: `/nodes/${graph.indexOf(id)}`,
        code: 'UNREACHABLE_NODE',
        message: `node "${id}" cannot be reached from the start node`,
      });
    }
  }
  return issues;
}

/** The checks that need no catalog: cheap enough to run again before every run. */
export function validateStructure(definition: WorkflowDefinition, registry: NodeRegistry): ValidationIssue[] {
  if (!Array.isArray(definition?.nodes) || !Array.isArray(definition?.edges)) {
    return [{ path: '', code: 'INVALID_DEFINITION', message: 'a workflow needs nodes[] and edges[]' }];
  }
  const graph = new WorkflowGraph(definition);
  return [...checkNodes(definition, registry), ...checkEdges(definition, graph, registry), ...checkReachability(graph)];
}
