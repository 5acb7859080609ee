/**
 * Prompt mode's call syntax: fenced JSON blocks in the model's reply, each
 * `{"type":"use_mcp_tool","server_name":…,"tool_name":…,"arguments":{…}}`. Other fenced blocks
 * are part of the answer and left alone; a block that mentions use_mcp_tool but is not valid
 * JSON is a call the model got wrong, reported back so it can write it again.
 */
export const TOOL_CALL_TYPE = 'use_mcp_tool';

export interface PromptToolCall {
  serverName?: string;
  toolName?: string;
  arguments?: unknown;
  /** Why the block could not be read as a call. */
  error?: string;
}

const FENCED_BLOCK = /```[^\n`]*\n([\s\S]*?)```/g;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export function parsePromptToolCalls(text: string | null): PromptToolCall[] {
  const calls: PromptToolCall[] = [];
  for (const match of (text ?? '').matchAll(FENCED_BLOCK)) {
    const body = match[1].trim();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      if (body.includes(TOOL_CALL_TYPE))
        calls.push({ error: `the ${TOOL_CALL_TYPE} block is not valid JSON (${error instanceof Error ? error.message : String(error)})` });
      continue;
    }
    if (!isRecord(parsed) || parsed.type !== TOOL_CALL_TYPE) continue;
    calls.push({ serverName: optionalString(parsed.server_name), toolName: optionalString(parsed.tool_name), arguments: parsed.arguments });
  }
  return calls;
}
