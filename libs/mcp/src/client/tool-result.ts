/**
 * tools/call results, read leniently: the SDK's own result schema strips fields it does not
 * know, and we keep every field of every content block (annotations, `_meta`, resource metadata).
 */
import { z } from 'zod';
import { McpError, McpErrorCode } from '../errors.js';
import { compileSchema } from '../schema/dialect-validator.js';
import type { JsonSchema, McpContent, NormalizedToolResult } from '../types.js';

export const LenientCallToolResult = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

export function normalizeResult(raw: z.infer<typeof LenientCallToolResult>): NormalizedToolResult {
  const content = (raw.content ?? []) as McpContent[];
  const text = content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
  const result: NormalizedToolResult = { isError: raw.isError === true, text, content };
  if (raw.structuredContent !== undefined) result.structuredContent = raw.structuredContent;
  return result;
}

/**
 * A tool that declares an outputSchema must return matching structuredContent (unless isError).
 * An output schema that cannot compile is not checked: listTools() already marked the tool unusable.
 */
export function checkStructuredContent(tool: string, result: NormalizedToolResult, outputSchema: JsonSchema | undefined): void {
  if (outputSchema === undefined || result.isError) return;
  const compiled = compileSchema(outputSchema);
  if (!compiled.ok) return;
  if (result.structuredContent === undefined) {
    throw new McpError(McpErrorCode.PROTOCOL_ERROR, `tool "${tool}" declares an outputSchema but returned no structuredContent`);
  }
  const errors = compiled.validate(result.structuredContent);
  if (errors.length > 0) {
    const summary = errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ');
    throw new McpError(
      McpErrorCode.PROTOCOL_ERROR,
      `tool "${tool}" returned structuredContent that does not match its outputSchema: ${summary}`,
      { errors },
    );
  }
}

/** An `isError` result as an error value, for callers that treat it as a failure. */
export function toolErrorOf(tool: string, result: NormalizedToolResult): McpError | undefined {
  if (!result.isError) return undefined;
  return new McpError(McpErrorCode.TOOL_ERROR, `tool "${tool}" reported an error: ${result.text || '(no text)'}`);
}
