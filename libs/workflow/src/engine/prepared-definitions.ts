import { WorkflowGraph } from './graph.js';
import type { NodeRegistry } from './registry.js';
import type { ValidationIssue, WorkflowDefinition } from './types.js';
import { validateStructure } from './validate-structure.js';

/**
 * A definition's graph and structure check, kept per definition object while it lives: a map's
 * body runs once per item with the same definition, and building its graph and checking it again
 * for each item cost more than the body's own nodes. Definitions are never changed once a run
 * holds them. Only a passed check is kept (types registered later cannot make it fail).
 */
const graphs = new WeakMap<WorkflowDefinition, WorkflowGraph>();
const passed = new WeakMap<WorkflowDefinition, WeakSet<NodeRegistry>>();

export function graphOf(workflow: WorkflowDefinition): WorkflowGraph {
  let graph = graphs.get(workflow);
  if (!graph) graphs.set(workflow, (graph = new WorkflowGraph(workflow)));
  return graph;
}

export function structureIssues(workflow: WorkflowDefinition, registry: NodeRegistry): ValidationIssue[] {
  if (passed.get(workflow)?.has(registry)) return [];
  const issues = validateStructure(workflow, registry);
  if (issues.length === 0) {
    let registries = passed.get(workflow);
    if (!registries) passed.set(workflow, (registries = new WeakSet()));
    registries.add(registry);
  }
  return issues;
}
