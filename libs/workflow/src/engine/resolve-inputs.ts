import { ENGINE_ERROR_CODES, EngineError } from './errors.js';
import { parseReference, readPath, renderTemplate } from './references.js';
import type { NodeDefinition, TypedField, ValueSource } from './types.js';
import { describeValueType, valueFits } from './value-types.js';

/** What upstream nodes published so far: outputs, or `{error}` for a failed node with catchError. */
export type PublishedValues = (nodeId: string) => Record<string, unknown> | undefined;

function invalidInput(path: string, message: string): EngineError {
  return new EngineError(ENGINE_ERROR_CODES.nodeInputInvalid, message, { path });
}

/** A reference to a node that did not run (skipped branch) reads as `undefined`. */
export function resolveValueSource(source: ValueSource, published: PublishedValues, path: string): unknown {
  if (typeof source !== 'object' || source === null) throw invalidInput(path, 'not a value source');
  if ('value' in source) return source.value;
  if ('ref' in source) {
    const reference = typeof source.ref === 'string' ? parseReference(source.ref) : undefined;
    if (!reference) throw invalidInput(path, `malformed reference ${JSON.stringify(source.ref)}`);
    return readPath(published(reference.nodeId)?.[reference.key], reference.path);
  }
  if ('template' in source && typeof source.template === 'string') {
    return renderTemplate(source.template, (reference) => readPath(published(reference.nodeId)?.[reference.key], reference.path));
  }
  throw invalidInput(path, 'not a value source');
}

/**
 * Resolves a node's inputs and checks them against its declared inputs (when it declares any).
 * Inputs that resolve to `undefined` are left out, so that an optional input stays unset.
 */
export function resolveNodeInputs(
  node: NodeDefinition,
  nodePath: string,
  declared: readonly TypedField[] | undefined,
  published: PublishedValues,
): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [key, source] of Object.entries(node.inputs ?? {})) {
    const path = `${nodePath}/inputs/${key}`;
    const value = resolveValueSource(source, published, path);
    if (value === undefined) continue;
    const field = declared?.find((candidate) => candidate.key === key);
    if (field && !valueFits(value, field.valueType)) {
      throw invalidInput(path, `input "${key}" of node "${node.id}" is ${describeValueType(value)}, expected ${field.valueType}`);
    }
    resolved[key] = value;
  }
  for (const field of declared ?? []) {
    if (field.required && !Object.hasOwn(resolved, field.key)) {
      throw invalidInput(`${nodePath}/inputs/${field.key}`, `required input "${field.key}" of node "${node.id}" has no value`);
    }
  }
  return resolved;
}
