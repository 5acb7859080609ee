/**
 * tools/list pages → ToolSnapshots. Tools are read one by one, never with the SDK's strict
 * page schema: one malformed or uncompilable tool is marked unusable with its reason and the
 * rest of the listing stands.
 */
import { z } from 'zod';
import { McpError, McpErrorCode } from '../errors.js';
import { compileSchema } from '../schema/dialect-validator.js';
import { schemaToFields } from '../schema/fields.js';
import { isSchemaObject } from '../schema/local-refs.js';
import type { JsonSchema, ToolSnapshot } from '../types.js';
import type { WireClient, WireRequestOptions } from './session.js';

/** A server that keeps paging past this is broken, not large. */
const MAX_PAGES = 1_000;

const LenientToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Every page of tools/list, following nextCursor; duplicate names keep their first entry. */
export async function listAllTools(client: WireClient, options: WireRequestOptions): Promise<ToolSnapshot[]> {
  const byName = new Map<string, ToolSnapshot>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      LenientToolsPage,
      options,
    );
    for (const raw of result.tools) {
      const snapshot = toSnapshot(raw);
      if (snapshot && !byName.has(snapshot.name)) byName.set(snapshot.name, snapshot);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return [...byName.values()];
    if (seenCursors.has(cursor))
      throw new McpError(McpErrorCode.PROTOCOL_ERROR, `tools/list repeated the cursor ${JSON.stringify(cursor)}`);
    seenCursors.add(cursor);
  }
  throw new McpError(McpErrorCode.PROTOCOL_ERROR, `tools/list returned more than ${MAX_PAGES} pages`);
}

/** undefined for an entry without a name: nothing could ever call it. */
export function toSnapshot(raw: unknown): ToolSnapshot | undefined {
  if (!isSchemaObject(raw) || typeof raw.name !== 'string' || raw.name === '') return undefined;
  const problems: string[] = [];
  // A missing inputSchema (sloppy servers, tools without arguments) is read as "no arguments".
  const inputSchema = raw.inputSchema === undefined ? { type: 'object' } : raw.inputSchema;
  const input = checkSchema('inputSchema', inputSchema, problems);
  const output = raw.outputSchema === undefined ? undefined : checkSchema('outputSchema', raw.outputSchema, problems);
  const annotations = isSchemaObject(raw.annotations) ? raw.annotations : undefined;
  const title = typeof raw.title === 'string' ? raw.title : typeof annotations?.title === 'string' ? annotations.title : undefined;

  const snapshot: ToolSnapshot = {
    name: raw.name,
    inputSchema: input ?? {},
    inputs: input ? schemaToFields(input) : [],
    usable: problems.length === 0,
  };
  if (title !== undefined) snapshot.title = title;
  if (typeof raw.description === 'string') snapshot.description = raw.description;
  if (output !== undefined) {
    snapshot.outputSchema = output;
    snapshot.outputs = schemaToFields(output);
  }
  if (annotations) snapshot.annotations = annotations;
  if (problems.length > 0) snapshot.unusableReason = problems.join('; ');
  return snapshot;
}

function checkSchema(field: string, schema: unknown, problems: string[]): JsonSchema | undefined {
  if (!isSchemaObject(schema)) {
    problems.push(`${field} is not a JSON Schema object`);
    return undefined;
  }
  const compiled = compileSchema(schema);
  if (!compiled.ok) problems.push(`${field} cannot be compiled (${compiled.dialect}): ${compiled.reason}`);
  return schema;
}
