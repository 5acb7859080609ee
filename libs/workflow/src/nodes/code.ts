import { compileSchema, validateArguments } from '#mcp';
import { EngineError } from '../engine/errors.js';
import type { JsonSchema, NodeDefinition, NodeExecutor, TypedField, ValidationIssue } from '../engine/types.js';
import { valueTypeOfSchema } from '../engine/value-types.js';
import { CODE_ERROR_CODES } from './code/code-errors.js';
import { sharedSandboxPool } from './code/sandbox-pool.js';

/** Limits of one call (see docs/data-nodes.md, "Limits"). */
export const CODE_LIMITS = {
  timeoutMs: { default: 1_000, max: 30_000 },
  memoryMb: { default: 32, min: 4, max: 256 },
  codeChars: 100_000,
} as const;

interface CodeConfig {
  code: string;
  timeoutMs: number;
  memoryMb: number;
  outputSchema?: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readInteger(raw: unknown, path: string, range: { min: number; max: number }, issues: ValidationIssue[]): void {
  if (raw === undefined) return;
  if (!Number.isInteger(raw) || (raw as number) < range.min || (raw as number) > range.max) {
    issues.push({ path, code: 'INVALID_CONFIG', message: `must be an integer from ${range.min} to ${range.max}` });
  }
}

function readConfig(node: NodeDefinition, nodePath: string): { config: CodeConfig; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const raw = node.config ?? {};
  const path = `${nodePath}/config`;
  for (const key of Object.keys(raw).filter((name) => !['code', 'timeoutMs', 'memoryMb', 'outputSchema'].includes(name))) {
    issues.push({ path: `${path}/${key}`, code: 'INVALID_CONFIG', message: `unknown config field "${key}"` });
  }
  if (typeof raw.code !== 'string' || raw.code.trim() === '') {
    issues.push({
      path: `${path}/code`,
      code: 'INVALID_CONFIG',
      message: 'code must be non-empty JavaScript (the body of a function of `inputs`)',
    });
  } else if (raw.code.length > CODE_LIMITS.codeChars) {
    issues.push({ path: `${path}/code`, code: 'INVALID_CONFIG', message: `code is longer than ${CODE_LIMITS.codeChars} characters` });
  }
  readInteger(raw.timeoutMs, `${path}/timeoutMs`, { min: 1, max: CODE_LIMITS.timeoutMs.max }, issues);
  readInteger(raw.memoryMb, `${path}/memoryMb`, CODE_LIMITS.memoryMb, issues);
  if (raw.outputSchema !== undefined) {
    const compiled = isRecord(raw.outputSchema) ? compileSchema(raw.outputSchema) : undefined;
    if (!compiled)
      issues.push({ path: `${path}/outputSchema`, code: 'INVALID_CONFIG', message: 'outputSchema must be a JSON Schema object' });
    else if (!compiled.ok)
      issues.push({ path: `${path}/outputSchema`, code: 'INVALID_CONFIG', message: `outputSchema does not compile: ${compiled.reason}` });
  }
  const config: CodeConfig = {
    code: typeof raw.code === 'string' ? raw.code : '',
    timeoutMs: typeof raw.timeoutMs === 'number' ? raw.timeoutMs : CODE_LIMITS.timeoutMs.default,
    memoryMb: typeof raw.memoryMb === 'number' ? raw.memoryMb : CODE_LIMITS.memoryMb.default,
    outputSchema: isRecord(raw.outputSchema) ? raw.outputSchema : undefined,
  };
  return { config, issues };
}

/** JSON from the sandbox; a `__proto__` key is dropped so that no later merge can reach a prototype. */
function parseResult(json: string): unknown {
  return JSON.parse(json, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}

function resultOutput(schema: JsonSchema | undefined): TypedField {
  return {
    key: 'result',
    label: 'Result',
    description: 'what the code returned (JSON)',
    valueType: valueTypeOfSchema(schema),
    required: false,
    schema: schema ?? true,
  };
}

const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: {
    code: {
      type: 'string',
      minLength: 1,
      maxLength: CODE_LIMITS.codeChars,
      description: 'JavaScript: the body of an async function of `inputs`; what it returns is `result`.',
    },
    timeoutMs: { type: 'integer', minimum: 1, maximum: CODE_LIMITS.timeoutMs.max, default: CODE_LIMITS.timeoutMs.default },
    memoryMb: {
      type: 'integer',
      minimum: CODE_LIMITS.memoryMb.min,
      maximum: CODE_LIMITS.memoryMb.max,
      default: CODE_LIMITS.memoryMb.default,
    },
    outputSchema: { type: 'object', description: 'JSON Schema the result must match; it also types `result` for later nodes.' },
  },
};

/**
 * Runs JavaScript in a QuickJS (WebAssembly) sandbox on a worker thread: the node's inputs arrive
 * as `inputs`, what the code returns is `result`. No host access; CPU time and memory limited.
 */
export const codeNode: NodeExecutor = {
  type: 'code',
  pure: true,
  describeType: () => ({
    title: 'Code',
    description: 'JavaScript in a QuickJS sandbox: `inputs` in, the returned value out as `result`.',
    configSchema: CONFIG_SCHEMA,
    handles: ['out'],
    outputs: [resultOutput(undefined)],
  }),
  validate: async ({ node, nodePath }) => readConfig(node, nodePath).issues,
  describeOutputs: async ({ node }) => [resultOutput(readConfig(node, '').config.outputSchema)],
  execute: async ({ node, inputs, signal }) => {
    const { config } = readConfig(node, '');
    const task = { code: config.code, inputsJson: JSON.stringify(inputs), timeoutMs: config.timeoutMs, memoryMb: config.memoryMb };
    const outcome = await sharedSandboxPool().run(task, signal);
    if (!outcome.ok) {
      const details = outcome.line === undefined ? undefined : { line: outcome.line, column: outcome.column };
      throw new EngineError(outcome.code, outcome.message, { details });
    }
    const result = parseResult(outcome.resultJson);
    if (config.outputSchema) {
      const validation = validateArguments(config.outputSchema, result);
      if (!validation.ok) {
        const problems = validation.errors.map((problem) => `${problem.path === '' ? '(root)' : problem.path} ${problem.message}`);
        throw new EngineError(CODE_ERROR_CODES.outputInvalid, `the result does not match outputSchema: ${problems.join('; ')}`);
      }
    }
    return { outputs: { result } };
  },
};
