import { ENGINE_ERROR_CODES, EngineError } from '../engine/errors.js';
import type { NodeExecutor, TypedField } from '../engine/types.js';
import { NO_CONFIG_SCHEMA } from './config-schemas.js';
import { pauseRun, pausesOf } from './pause.js';

/** The longest wait (30 days), like an approval's longest timeout. */
export const MAX_WAIT_MS = 30 * 24 * 3600 * 1000;

const INPUTS: TypedField[] = [
  {
    key: 'durationMs',
    label: 'Duration (ms)',
    description: 'how long to wait; give this or until',
    valueType: 'integer',
    required: false,
    schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS },
  },
  {
    key: 'until',
    label: 'Until',
    description: 'when to go on (ISO 8601 date-time); give this or durationMs',
    valueType: 'string',
    required: false,
    schema: { type: 'string', format: 'date-time' },
  },
];

const OUTPUTS: TypedField[] = [
  {
    key: 'resumedAt',
    label: 'resumedAt',
    description: 'when the wait ended (ISO 8601)',
    valueType: 'string',
    required: false,
    schema: true,
  },
  {
    key: 'endedEarly',
    label: 'endedEarly',
    description: 'true when POST /runs/{id}/input ended the wait before its time',
    valueType: 'boolean',
    required: false,
    schema: true,
  },
];

function wakeTime(inputs: Record<string, unknown>, now: number): number {
  if (typeof inputs.durationMs === 'number') return now + inputs.durationMs;
  const until = typeof inputs.until === 'string' ? Date.parse(inputs.until) : NaN;
  if (Number.isNaN(until))
    throw new EngineError(ENGINE_ERROR_CODES.nodeInputInvalid, 'wait needs durationMs or until (an ISO 8601 date-time)');
  if (until - now > MAX_WAIT_MS) throw new EngineError(ENGINE_ERROR_CODES.nodeInputInvalid, `until is more than ${MAX_WAIT_MS} ms away`);
  return until;
}

/**
 * Pauses the run for `durationMs` or until `until`, durably: the run goes `waiting` holding no
 * worker, and a scheduled resume (a delayed queue job) brings it back. An answer through
 * `POST /runs/:id/input` ends the wait early.
 */
export const waitNode: NodeExecutor = {
  type: 'wait',
  describeType: () => ({
    title: 'Wait',
    description: 'Pauses the run for a duration or until a time, holding no worker; POST /runs/{id}/input ends it early.',
    configSchema: NO_CONFIG_SCHEMA,
    handles: ['out'],
    inputs: INPUTS,
    outputs: OUTPUTS,
  }),
  validate: async ({ node, nodePath }) => {
    const given = INPUTS.filter((input) => node.inputs?.[input.key] !== undefined).length;
    return given === 1
      ? []
      : [{ path: `${nodePath}/inputs`, code: 'INVALID_CONFIG', message: 'wait needs exactly one of durationMs or until' }];
  },
  describeInputs: async () => INPUTS,
  describeOutputs: async () => OUTPUTS,
  execute: async ({ node, inputs, services }) => {
    const pauses = pausesOf(services, 'wait');
    const state = await pauses.stateOf(node.id);
    const now = services.clock.now();
    if (state?.answer) return { outputs: { resumedAt: new Date(now).toISOString(), endedEarly: true } };
    const resumeAt = state?.resumeAt ?? wakeTime(inputs, now);
    if (now >= resumeAt) return { outputs: { resumedAt: new Date(now).toISOString(), endedEarly: false } };
    const message = `waiting until ${new Date(resumeAt).toISOString()}`;
    return pauseRun(pauses, node.id, { message, requestedSchema: { type: 'object' }, resumeAt });
  },
};
