import { ERROR_HANDLE, WorkflowGraph } from './graph.js';
import { parseReference, templatePlaceholders, type Reference } from './references.js';
import type { NodeRegistry } from './registry.js';
import type { ToolCatalog, TypedField, ValidationIssue, ValueSource, ValueType, WorkflowCatalog, WorkflowDefinition } from './types.js';
import { typeFits, valueFits } from './value-types.js';

interface ReferenceCheck {
  issues: ValidationIssue[];
  valueType: ValueType;
}

/** The type reached by walking `path` into a value of `type`; only array indexes keep a known type. */
function typeAtPath(type: ValueType, path: readonly string[]): ValueType {
  let current = type;
  for (const segment of path) {
    const isIndex = /^\d+$/.test(segment);
    if (isIndex && current.startsWith('array<')) current = current.slice(6, -1) as ValueType;
    else return 'any';
  }
  return current;
}

/** Outputs a failed node publishes when it has `catchError`. */
function errorOutputType(path: readonly string[]): ValueType | undefined {
  if (path.length === 0) return 'object';
  if (path.length === 1 && (path[0] === 'code' || path[0] === 'message')) return 'string';
  return undefined;
}

/**
 * Checks value sources against the graph: references must name an upstream node and one of its
 * outputs, and their declared type must be able to fit the input they feed.
 */
export class ReferenceChecker {
  private readonly outputsByNode = new Map<string, Promise<TypedField[] | undefined>>();

  constructor(
    private readonly definition: WorkflowDefinition,
    private readonly graph: WorkflowGraph,
    private readonly registry: NodeRegistry,
    private readonly catalog: ToolCatalog,
    private readonly workflows?: WorkflowCatalog,
  ) {}

  async checkValueSource(source: ValueSource, path: string, consumerId: string, targetType: ValueType): Promise<ValidationIssue[]> {
    const candidate = source as Partial<Record<'value' | 'ref' | 'template', unknown>> | null;
    const kinds =
      candidate && typeof candidate === 'object' ? (['value', 'ref', 'template'] as const).filter((kind) => kind in candidate) : [];
    if (!candidate || kinds.length !== 1) {
      return [{ path, code: 'INVALID_VALUE_SOURCE', message: 'a value source is exactly one of {value}, {ref} or {template}' }];
    }
    if (kinds[0] === 'value') {
      return valueFits(candidate.value, targetType)
        ? []
        : [{ path, code: 'TYPE_MISMATCH', message: `literal does not fit type ${targetType}` }];
    }
    if (kinds[0] === 'ref') return this.checkRefSource(candidate.ref, path, consumerId, targetType);
    return this.checkTemplateSource(candidate.template, path, consumerId, targetType);
  }

  private async checkRefSource(text: unknown, path: string, consumerId: string, targetType: ValueType): Promise<ValidationIssue[]> {
    const reference = typeof text === 'string' ? parseReference(text) : undefined;
    if (!reference)
      return [{ path, code: 'REF_MALFORMED', message: `reference ${JSON.stringify(text)} is not "<nodeId>.<outputKey>[.path]"` }];
    const { issues, valueType } = await this.checkReference(reference, path, consumerId);
    if (issues.length === 0 && !typeFits(valueType, targetType)) {
      issues.push({ path, code: 'TYPE_MISMATCH', message: `"${text}" is ${valueType}, the input needs ${targetType}` });
    }
    return issues;
  }

  private async checkTemplateSource(
    template: unknown,
    path: string,
    consumerId: string,
    targetType: ValueType,
  ): Promise<ValidationIssue[]> {
    if (typeof template !== 'string') return [{ path, code: 'INVALID_VALUE_SOURCE', message: 'a template must be a string' }];
    const issues: ValidationIssue[] = [];
    for (const placeholder of templatePlaceholders(template)) {
      const reference = parseReference(placeholder);
      if (!reference)
        issues.push({
          path,
          code: 'REF_MALFORMED',
          message: `template placeholder {{${placeholder}}} is not "<nodeId>.<outputKey>[.path]"`,
        });
      else issues.push(...(await this.checkReference(reference, path, consumerId)).issues);
    }
    if (!typeFits('string', targetType))
      issues.push({ path, code: 'TYPE_MISMATCH', message: `a template renders a string, the input needs ${targetType}` });
    return issues;
  }

  private async checkReference(reference: Reference, path: string, consumerId: string): Promise<ReferenceCheck> {
    const { nodeId, key } = reference;
    const named = `"${nodeId}.${key}"`;
    const source = this.graph.node(nodeId);
    if (!source) return { issues: [{ path, code: 'REF_UNKNOWN_NODE', message: `${named} names no node` }], valueType: 'any' };
    if (!this.graph.ancestors(consumerId).has(nodeId)) {
      return {
        issues: [{ path, code: 'REF_NOT_UPSTREAM', message: `${named}: node "${nodeId}" is not upstream of "${consumerId}"` }],
        valueType: 'any',
      };
    }
    if (key === ERROR_HANDLE && source.catchError) {
      const valueType = errorOutputType(reference.path);
      if (valueType) return { issues: [], valueType };
      return {
        issues: [{ path, code: 'REF_UNKNOWN_OUTPUT', message: `${named}: a caught error has only code and message` }],
        valueType: 'any',
      };
    }
    const outputs = await this.outputsOf(nodeId);
    if (!outputs) return { issues: [], valueType: 'any' };
    const field = outputs.find((output) => output.key === key);
    if (!field) {
      const known = outputs.map((output) => output.key).join(', ') || 'none';
      return {
        issues: [{ path, code: 'REF_UNKNOWN_OUTPUT', message: `${named}: node "${nodeId}" has no output "${key}" (has: ${known})` }],
        valueType: 'any',
      };
    }
    return { issues: [], valueType: typeAtPath(field.valueType, reference.path) };
  }

  private outputsOf(nodeId: string): Promise<TypedField[] | undefined> {
    let outputs = this.outputsByNode.get(nodeId);
    if (!outputs) {
      const node = this.graph.node(nodeId);
      const executor = node && this.registry.get(node.type);
      const context = node && {
        node,
        nodePath: `/nodes/${this.graph.indexOf(nodeId)}`,
        catalog: this.catalog,
        workflows: this.workflows,
        workflow: this.definition,
      };
      // An output list that cannot be described (unknown type, catalog failure) accepts any key:
      // the cause is reported once on the node itself rather than on every reference to it.
      outputs =
        context && executor?.describeOutputs ? executor.describeOutputs(context).catch(() => undefined) : Promise.resolve(undefined);
      this.outputsByNode.set(nodeId, outputs);
    }
    return outputs;
  }
}
