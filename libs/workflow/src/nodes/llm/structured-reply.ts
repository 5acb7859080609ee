import { validateArguments } from '#mcp';
import { EngineError } from '../../engine/errors.js';
import { LLM_ERROR_CODES } from './llm-client.js';

/** Models asked for JSON still wrap it in a Markdown fence now and then; the fence is not part of the answer. */
const FENCED = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/;

function invalid(message: string): EngineError {
  return new EngineError(LLM_ERROR_CODES.responseInvalid, message);
}

/**
 * The reply of a structured-output call: JSON that matches `schema` (Ajv, the schema's own
 * dialect). Anything else fails with LLM_RESPONSE_INVALID naming every problem.
 */
export function parseStructuredReply(text: string | null, schema: Record<string, unknown>): unknown {
  const trimmed = (text ?? '').trim();
  const body = FENCED.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const preview = trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
    throw invalid(`the model's reply is not JSON (${error instanceof Error ? error.message : String(error)}): ${JSON.stringify(preview)}`);
  }
  const validation = validateArguments(schema, value);
  if (!validation.ok) {
    const problems = validation.errors.map((problem) => `${problem.path === '' ? '(root)' : problem.path} ${problem.message}`);
    throw invalid(`the model's reply does not match responseSchema: ${problems.join('; ')}`);
  }
  return value;
}
