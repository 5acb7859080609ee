import { McpErrorCode } from '#mcp';
import { toEngineError } from '../../engine/errors.js';
import type { NodeExecutionContext, ToolCallResult } from '../../engine/types.js';
import { redactArguments } from './redact-arguments.js';
import type { CallProblem, RequestedCall } from './requested-call.js';

/** One tool call of an agent, as logged (details) and published (`toolCalls[]`, with `result`). */
export interface ToolCallRecord {
  id: string;
  /** The model call (from 1) whose reply asked for it. */
  iteration: number;
  /** The tool as the model named it. */
  name: string;
  toolsetId?: string;
  tool?: string;
  /** Secrets redacted. */
  arguments: unknown;
  isError: boolean;
  durationMs: number;
  sessionReused?: boolean;
  transport?: string;
  error?: CallProblem;
}

export interface ToolCallOutcome {
  record: ToolCallRecord;
  /** What the tool gave back: structuredContent, else its text. */
  result?: unknown;
  /** The message content fed back to the model. */
  content: string;
}

const errorContent = (error: CallProblem): string => JSON.stringify({ error });

/** Structured content as JSON, else the text, else the raw blocks (images and the like). */
function resultContent(result: ToolCallResult): string {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return JSON.stringify(result.structuredContent);
  if (result.text !== '' || result.content.length === 0) return result.text;
  return JSON.stringify(result.content);
}

/**
 * Runs one requested call through the run's tool invoker. Every failure becomes an error the
 * model reads (it may retry or answer without the tool), except cancellation of the node, which
 * propagates.
 */
export async function runToolCall(call: RequestedCall, iteration: number, context: NodeExecutionContext): Promise<ToolCallOutcome> {
  const { services, signal, node, callTimeoutMs } = context;
  const startedAt = services.clock.now();
  const record: ToolCallRecord = {
    id: call.id,
    iteration,
    name: call.name,
    arguments: redactArguments(call.arguments, call.tool?.inputSchema),
    isError: true,
    durationMs: 0,
  };
  const finish = (outcome: Omit<ToolCallOutcome, 'record'>): ToolCallOutcome => {
    record.durationMs = Math.max(0, services.clock.now() - startedAt);
    return { record, ...outcome };
  };
  if (call.tool) Object.assign(record, { toolsetId: call.tool.toolsetId, tool: call.tool.tool });
  if (call.problem !== undefined) {
    record.error = call.problem;
    return finish({ content: errorContent(call.problem) });
  }
  const { tool } = call;
  try {
    const mayRepeat = (node.retry?.maxAttempts ?? 1) > 1 || tool.idempotent;
    const result = await services.tools.callTool({
      toolsetId: tool.toolsetId,
      tool: tool.tool,
      arguments: call.arguments,
      signal,
      timeoutMs: callTimeoutMs,
      mayRepeat,
    });
    Object.assign(record, { isError: result.isError, sessionReused: result.sessionReused, transport: result.transport });
    const value = result.structuredContent ?? result.text;
    if (!result.isError) return finish({ result: value, content: resultContent(result) });
    record.error = { code: McpErrorCode.TOOL_ERROR, message: (result.text || `tool "${tool.tool}" reported an error`).slice(0, 1000) };
    return finish({ result: value, content: errorContent({ code: record.error.code, message: result.text || record.error.message }) });
  } catch (thrown) {
    if (signal.aborted) throw thrown;
    const { code, message } = toEngineError(thrown);
    record.error = { code, message };
    return finish({ content: errorContent(record.error) });
  }
}
