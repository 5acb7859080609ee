import { compileSchema } from '#mcp';
import type {
  ConfigValueSource,
  JsonSchema,
  NodeDefinition,
  NodeExecutor,
  TypedField,
  ValidationIssue,
  ValueSource,
} from '../engine/types.js';
import { VALUE_SOURCE_SCHEMA } from './config-schemas.js';
import { pauseRun, pausesOf } from './pause.js';

/** The shortest and longest `timeoutMs` (1 second; 30 days). */
export const APPROVAL_TIMEOUT_LIMITS = { min: 1000, max: 30 * 24 * 3600 * 1000 } as const;

const HANDLES = { approved: 'approved', rejected: 'rejected', timeout: 'timeout' } as const;

/** An answer's form when the node gives no schema: accept with any object (or none). */
const ANY_CONTENT: JsonSchema = { type: 'object' };

interface ApprovalConfig {
  message: string | ValueSource;
  schema?: Record<string, unknown>;
  timeoutMs?: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isValueSource = (value: unknown): value is ValueSource =>
  isRecord(value) && Object.keys(value).length === 1 && ('value' in value || 'ref' in value || 'template' in value);

function readConfig(node: NodeDefinition, nodePath: string): { config: ApprovalConfig; issues: ValidationIssue[] } {
  const { message, schema, timeoutMs } = node.config ?? {};
  const issues: ValidationIssue[] = [];
  const issue = (key: string, text: string) => issues.push({ path: `${nodePath}/config/${key}`, code: 'INVALID_CONFIG', message: text });
  if (!(typeof message === 'string' && message.trim() !== '') && !isValueSource(message)) {
    issue('message', 'approval needs a message: a non-empty string or a value source ({template: "…"})');
  }
  if (schema !== undefined) {
    const compiled = isRecord(schema) ? compileSchema(schema) : undefined;
    if (!compiled) issue('schema', 'schema must be a JSON Schema object');
    else if (!compiled.ok) issue('schema', `schema does not compile: ${compiled.reason}`);
  }
  const { min, max } = APPROVAL_TIMEOUT_LIMITS;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) >= min && (timeoutMs as number) <= max)) {
    issue('timeoutMs', `timeoutMs must be an integer from ${min} to ${max}`);
  }
  const config: ApprovalConfig = { message: isValueSource(message) ? message : String(message ?? '') };
  if (isRecord(schema)) config.schema = schema;
  if (typeof timeoutMs === 'number') config.timeoutMs = timeoutMs;
  return { config, issues };
}

function field(key: string, valueType: TypedField['valueType'], description: string): TypedField {
  return { key, label: key, description, valueType, required: false, schema: true };
}

const OUTPUTS: TypedField[] = [
  field('action', 'string', 'accept, decline or cancel (the answer), or timeout'),
  field('content', 'object', 'what the person filled in (accept only), checked against config.schema'),
  field('answeredBy', 'string', 'the API key id that answered'),
  field('answeredAt', 'string', 'when the answer came (ISO 8601)'),
];

/**
 * A person decides: the run goes `waiting` with the message and the answer's form (`schema`);
 * `POST /runs/:id/input` answers — accept (content checked against the schema) takes `approved`,
 * decline takes `rejected`; with `timeoutMs` and no answer by then, `timeout` (a scheduled resume
 * kept by the queue, not a timer in one process). Nothing is held while it waits.
 */
export const approvalNode: NodeExecutor = {
  type: 'approval',
  describeType: () => ({
    title: 'Approval',
    description:
      'Waits for a person: accept (with a form checked against schema) takes approved, decline rejected, no answer in time timeout.',
    configSchema: {
      type: 'object',
      properties: {
        message: { oneOf: [{ type: 'string', minLength: 1 }, VALUE_SOURCE_SCHEMA], description: 'what the person is asked' },
        schema: { type: 'object', description: "JSON Schema of the answer's content (the form)" },
        timeoutMs: { type: 'integer', minimum: APPROVAL_TIMEOUT_LIMITS.min, maximum: APPROVAL_TIMEOUT_LIMITS.max },
      },
      required: ['message'],
      additionalProperties: false,
    },
    handles: Object.values(HANDLES),
    inputs: [],
    outputs: OUTPUTS,
  }),
  validate: async ({ node, nodePath }) => readConfig(node, nodePath).issues,
  describeInputs: async () => [],
  describeOutputs: async ({ node }) => {
    const schema = readConfig(node, '').config.schema;
    return schema ? OUTPUTS.map((output) => (output.key === 'content' ? { ...output, schema } : output)) : OUTPUTS;
  },
  describeHandles: (node) =>
    readConfig(node, '').config.timeoutMs === undefined ? [HANDLES.approved, HANDLES.rejected] : Object.values(HANDLES),
  configValueSources: (node): ConfigValueSource[] =>
    isValueSource(node.config?.message) ? [{ path: '/config/message', source: node.config.message }] : [],
  execute: async ({ node, services, resolveValue }) => {
    const pauses = pausesOf(services, 'approval');
    const { config } = readConfig(node, '');
    const state = await pauses.stateOf(node.id);
    const answer = state?.answer;
    if (answer) {
      const outputs = {
        action: answer.action,
        content: answer.action === 'accept' ? (answer.content ?? {}) : null,
        answeredBy: answer.answeredBy ?? null,
        answeredAt: answer.answeredAt ?? null,
      };
      return { outputs, activeHandles: [answer.action === 'accept' ? HANDLES.approved : HANDLES.rejected] };
    }
    const now = services.clock.now();
    const resumeAt = state?.resumeAt ?? (config.timeoutMs === undefined ? undefined : now + config.timeoutMs);
    if (resumeAt !== undefined && now >= resumeAt) {
      return { outputs: { action: 'timeout', content: null, answeredBy: null, answeredAt: null }, activeHandles: [HANDLES.timeout] };
    }
    const message = typeof config.message === 'string' ? config.message : String(resolveValue?.(config.message) ?? '');
    return pauseRun(pauses, node.id, {
      message,
      requestedSchema: config.schema ?? ANY_CONTENT,
      ...(resumeAt !== undefined && { resumeAt }),
    });
  },
};
