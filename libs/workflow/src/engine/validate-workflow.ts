import { toEngineError } from './errors.js';
import { WorkflowGraph } from './graph.js';
import type { NodeRegistry } from './registry.js';
import type {
  NodeExecutor,
  NodeValidationContext,
  ToolCatalog,
  TypedField,
  ValidationIssue,
  WorkflowCatalog,
  WorkflowDefinition,
} from './types.js';
import { ReferenceChecker } from './validate-references.js';
import { validateStructure } from './validate-structure.js';

export interface ValidateWorkflowOptions {
  registry: NodeRegistry;
  catalog: ToolCatalog;
  /** What `workflow` nodes call: their inputs and outputs are typed from it. */
  workflows?: WorkflowCatalog;
}

interface NodeSelfCheck {
  issues: ValidationIssue[];
  /** Declared inputs; undefined when free-form or when the node's own checks failed. */
  declared?: TypedField[];
}

async function checkNodeItself(executor: NodeExecutor, context: NodeValidationContext): Promise<NodeSelfCheck> {
  try {
    const issues = (await executor.validate?.(context)) ?? [];
    if (issues.length > 0) return { issues };
    return { issues, declared: await executor.describeInputs?.(context) };
  } catch (thrown) {
    // The check itself failed (e.g. the toolset store did not answer): not a problem of the workflow's
    // own, so one code says so and the cause's code travels in the message.
    const error = toEngineError(thrown, 'VALIDATION_FAILED');
    return {
      issues: [
        { path: context.nodePath, code: 'NODE_CHECK_FAILED', message: `node could not be checked (${error.code}): ${error.message}` },
      ],
    };
  }
}

async function checkInputs(
  context: NodeValidationContext,
  declared: TypedField[] | undefined,
  checker: ReferenceChecker,
): Promise<ValidationIssue[]> {
  const { node, nodePath } = context;
  const inputs = typeof node.inputs === 'object' && node.inputs !== null ? node.inputs : {};
  const issues: ValidationIssue[] = [];
  for (const field of declared ?? []) {
    if (field.required && !Object.hasOwn(inputs, field.key)) {
      issues.push({
        path: `${nodePath}/inputs/${field.key}`,
        code: 'MISSING_REQUIRED_INPUT',
        message: `required input "${field.key}" is not set`,
      });
    }
  }
  for (const [key, source] of Object.entries(inputs)) {
    const path = `${nodePath}/inputs/${key}`;
    const field = declared?.find((candidate) => candidate.key === key);
    if (declared && !field) {
      issues.push({ path, code: 'UNKNOWN_INPUT', message: `node "${node.id}" has no input "${key}"` });
      continue;
    }
    issues.push(...(await checker.checkValueSource(source, path, node.id, field?.valueType ?? 'any')));
  }
  return issues;
}

/**
 * Every problem of a definition at once, each with a JSON-pointer-ish path
 * (`/nodes/2/inputs/text`, `/edges/0/target`) and a stable code.
 */
export async function validateWorkflow(definition: WorkflowDefinition, options: ValidateWorkflowOptions): Promise<ValidationIssue[]> {
  const { registry, catalog, workflows } = options;
  const validateSubgraph = async (body: WorkflowDefinition, path: string): Promise<ValidationIssue[]> =>
    (await validateWorkflow(body, options)).map((issue) => ({ ...issue, path: `${path}${issue.path}` }));
  const issues = validateStructure(definition, registry);
  if (!Array.isArray(definition?.nodes) || !Array.isArray(definition?.edges)) return issues;
  const graph = new WorkflowGraph(definition);
  const checker = new ReferenceChecker(definition, graph, registry, catalog, workflows);
  for (const [index, node] of definition.nodes.entries()) {
    const executor = registry.get(node.type);
    // Duplicates are reported by the structure checks; their references would only repeat them.
    if (!executor || graph.indexOf(node.id) !== index) continue;
    const context: NodeValidationContext = {
      node,
      nodePath: `/nodes/${index}`,
      catalog,
      workflows,
      workflow: definition,
      validateSubgraph,
    };
    const { issues: nodeIssues, declared } = await checkNodeItself(executor, context);
    issues.push(...nodeIssues, ...(await checkInputs(context, declared, checker)));
    for (const { path, source } of executor.configValueSources?.(node) ?? []) {
      issues.push(...(await checker.checkValueSource(source, `${context.nodePath}${path}`, node.id, 'any')));
    }
  }
  return issues;
}
