import { ENGINE_ERROR_CODES } from '../../engine/errors.js';
import type { AgentTool, Toolbox } from './toolbox.js';

/** A mistake in a call the model asked for; it goes back to the model, which may correct it. */
export interface CallProblem {
  code: string;
  message: string;
}

export const TOOL_ARGUMENTS_INVALID = 'TOOL_ARGUMENTS_INVALID';
/** Prompt mode: a use_mcp_tool block that cannot be read at all. */
export const TOOL_CALL_INVALID = 'TOOL_CALL_INVALID';

/** One tool call the model asked for, resolved to a tool of the toolbox, or to a problem. */
export type RequestedCall = {
  /** The call id the model's reply will be matched with. */
  id: string;
  /** The tool as the model named it. */
  name: string;
  /** The parsed arguments ({} when they could not be read). */
  arguments: Record<string, unknown>;
} & ({ tool: AgentTool; problem: undefined } | { tool?: AgentTool; problem: CallProblem });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Arguments come as JSON text (function mode) or as an already parsed value (prompt mode). */
function readArguments(raw: unknown): { value: Record<string, unknown>; problem?: CallProblem } {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { value: {} };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        value: {},
        problem: { code: TOOL_ARGUMENTS_INVALID, message: `the arguments are not valid JSON (${reason}); send a JSON object` },
      };
    }
  }
  if (value === undefined || value === null) return { value: {} };
  if (!isRecord(value)) return { value: {}, problem: { code: TOOL_ARGUMENTS_INVALID, message: 'the arguments must be a JSON object' } };
  return { value };
}

export function resolveCall(toolbox: Toolbox, id: string, name: string, tool: AgentTool | undefined, rawArguments: unknown): RequestedCall {
  const { value, problem } = readArguments(rawArguments);
  if (!tool) {
    const known = toolbox.tools.map((candidate) => candidate.functionName).join(', ') || 'none';
    return {
      id,
      name,
      arguments: value,
      problem: { code: ENGINE_ERROR_CODES.unknownTool, message: `there is no tool named "${name}"; available tools: ${known}` },
    };
  }
  return problem ? { id, name, tool, arguments: value, problem } : { id, name, tool, arguments: value, problem: undefined };
}
