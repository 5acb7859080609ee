import type {
  ConfigValueSource,
  JsonSchema,
  NodeDefinition,
  NodeExecutor,
  TypedField,
  ValidationIssue,
  ValueSource,
} from '../engine/types.js';
import { applyOperator, CONDITION_OPERATORS, isConditionOperator, UNARY_OPERATORS, type ConditionOperator } from './condition-operators.js';
import { VALUE_SOURCE_SCHEMA } from './config-schemas.js';

interface Comparison {
  left: ValueSource;
  op: ConditionOperator;
  right?: ValueSource;
}

interface Branch {
  id: string;
  mode: 'all' | 'any';
  comparisons: Comparison[];
}

interface ParsedConfig {
  branches: Branch[];
  issues: ValidationIssue[];
}

const ELSE_HANDLE = 'else';
const BRANCH_OUTPUT: TypedField = { key: 'branch', label: 'Branch', valueType: 'string', required: false, schema: { type: 'string' } };
const COMPARISON_SCHEMA = {
  type: 'object',
  properties: { left: VALUE_SOURCE_SCHEMA, op: { enum: [...CONDITION_OPERATORS] }, right: VALUE_SOURCE_SCHEMA },
  required: ['left', 'op'],
};
const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    branches: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', minLength: 1 },
          when: {
            type: 'object',
            properties: { all: { type: 'array', items: COMPARISON_SCHEMA }, any: { type: 'array', items: COMPARISON_SCHEMA } },
            minProperties: 1,
            maxProperties: 1,
          },
        },
        required: ['id', 'when'],
      },
    },
  },
  required: ['branches'],
};
const branchHandle = (id: string): string => `branch:${id}`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readComparisons(when: unknown, path: string, issues: ValidationIssue[]): Pick<Branch, 'mode' | 'comparisons'> {
  const mode = isRecord(when) && Array.isArray(when.all) ? 'all' : 'any';
  const list = isRecord(when) ? when[mode] : undefined;
  if (!isRecord(when) || !Array.isArray(list) || ('all' in when && 'any' in when)) {
    issues.push({ path: `${path}/when`, code: 'INVALID_CONFIG', message: 'when needs exactly one of all[] or any[]' });
    return { mode, comparisons: [] };
  }
  const comparisons: Comparison[] = [];
  list.forEach((item: unknown, index) => {
    const itemPath = `${path}/when/${mode}/${index}`;
    if (!isRecord(item) || !isConditionOperator(item.op)) {
      issues.push({ path: `${itemPath}/op`, code: 'INVALID_CONFIG', message: `op must be one of ${CONDITION_OPERATORS.join(', ')}` });
      return;
    }
    if (!isRecord(item.left)) issues.push({ path: `${itemPath}/left`, code: 'INVALID_CONFIG', message: 'left needs a value source' });
    if (!UNARY_OPERATORS.has(item.op) && !isRecord(item.right)) {
      issues.push({ path: `${itemPath}/right`, code: 'INVALID_CONFIG', message: `op "${item.op}" needs a right value source` });
    }
    comparisons.push({ left: item.left as ValueSource, op: item.op, right: item.right as ValueSource | undefined });
  });
  return { mode, comparisons };
}

function readConfig(node: NodeDefinition, nodePath: string): ParsedConfig {
  const issues: ValidationIssue[] = [];
  const raw = node.config?.branches;
  if (!Array.isArray(raw) || raw.length === 0) {
    return {
      branches: [],
      issues: [{ path: `${nodePath}/config/branches`, code: 'INVALID_CONFIG', message: 'condition needs at least one branch' }],
    };
  }
  const seen = new Set<string>();
  const branches = raw.map((item: unknown, index): Branch => {
    const path = `${nodePath}/config/branches/${index}`;
    const id = isRecord(item) && typeof item.id === 'string' ? item.id : '';
    if (id === '' || seen.has(id))
      issues.push({ path: `${path}/id`, code: 'INVALID_CONFIG', message: 'each branch needs a unique, non-empty id' });
    seen.add(id);
    return { id, ...readComparisons(isRecord(item) ? item.when : undefined, path, issues) };
  });
  return { branches, issues };
}

/**
 * Routes the run: activates `branch:<id>` of the first branch whose comparisons hold
 * (all of them, or any of them), else the `else` handle. Output `branch` names the choice.
 */
export const conditionNode: NodeExecutor = {
  type: 'condition',
  pure: true,
  describeType: () => ({
    title: 'Condition',
    description:
      'Routes the run: activates `branch:<id>` of the first branch whose comparisons hold (all of them, or any of them), else `else`.',
    configSchema: CONFIG_SCHEMA,
    handles: ['branch:<id>', ELSE_HANDLE],
    inputs: [],
    outputs: [BRANCH_OUTPUT],
  }),
  validate: async ({ node, nodePath }) => readConfig(node, nodePath).issues,
  describeOutputs: async () => [BRANCH_OUTPUT],
  describeHandles: (node) => [...readConfig(node, '').branches.map((branch) => branchHandle(branch.id)), ELSE_HANDLE],
  configValueSources: (node) =>
    readConfig(node, '').branches.flatMap((branch, index) =>
      branch.comparisons.flatMap((comparison, position): ConfigValueSource[] => {
        const path = `/config/branches/${index}/when/${branch.mode}/${position}`;
        const sources = [{ path: `${path}/left`, source: comparison.left }];
        if (comparison.right !== undefined) sources.push({ path: `${path}/right`, source: comparison.right });
        return sources;
      }),
    ),
  execute: async ({ node, resolveValue }) => {
    if (!resolveValue) throw new Error('condition nodes need the engine to resolve their operands');
    const holds = (comparison: Comparison): boolean =>
      applyOperator(
        comparison.op,
        resolveValue(comparison.left),
        comparison.right === undefined ? undefined : resolveValue(comparison.right),
      );
    const chosen = readConfig(node, '').branches.find((branch) =>
      branch.mode === 'all' ? branch.comparisons.every(holds) : branch.comparisons.some(holds),
    );
    return chosen
      ? { outputs: { branch: chosen.id }, activeHandles: [branchHandle(chosen.id)] }
      : { outputs: { branch: ELSE_HANDLE }, activeHandles: [ELSE_HANDLE] };
  },
};
