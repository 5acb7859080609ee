import { z } from 'zod';
import type { TransportMode } from '#mcp';
import { InvalidRequestError, type ProblemDetail } from '../../common/api-errors.js';
import { parseRequest, pointer } from '../../common/zod-validation.js';
import { createToolsetBody, type CreateToolsetBody } from './toolset-requests.js';

/** At most this many servers per import file. */
export const MAX_IMPORT_ENTRIES = 100;

/**
 * POST /toolsets/import: the `mcpServers` object of Claude Desktop and Cursor, or the `servers`
 * object of VS Code (its `inputs` list is accepted and ignored). Entries are checked one by one
 * (importEntry), so one bad entry does not refuse the others.
 */
export const importToolsetsBody = z
  .strictObject({
    mcpServers: z.record(z.string().min(1).max(200), z.unknown()).optional(),
    servers: z.record(z.string().min(1).max(200), z.unknown()).optional(),
    inputs: z.array(z.unknown()).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.mcpServers === undefined) === (body.servers === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give exactly one of "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code)',
      });
    }
    const count = Object.keys(body.mcpServers ?? body.servers ?? {}).length;
    if (count > MAX_IMPORT_ENTRIES)
      ctx.addIssue({
        code: 'custom',
        path: [body.mcpServers ? 'mcpServers' : 'servers'],
        message: `at most ${MAX_IMPORT_ENTRIES} servers per import`,
      });
  })
  .transform((body) => ({
    root: body.mcpServers ? 'mcpServers' : 'servers',
    entries: Object.entries(body.mcpServers ?? body.servers ?? {}),
  }));
export type ImportToolsetsBody = z.output<typeof importToolsetsBody>;

export const importToolsetsQuery = z.strictObject({
  dryRun: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

/** Fields some clients write for their own use (Cline, Roo, Claude Desktop extensions): not about reaching the server. */
const CLIENT_ONLY_FIELDS = ['disabled', 'alwaysAllow', 'autoApprove', 'description'];

/** `type` as the clients write it → our transport; stdio is told by `command`. */
const HTTP_TYPES: Record<string, TransportMode> = {
  http: 'auto',
  sse: 'sse',
  'streamable-http': 'streamable-http',
  streamableHttp: 'streamable-http',
};

/**
 * One entry of an import file as a create body (the entry's key becomes the toolset's name),
 * checked by the same schema as POST /toolsets; problems point into the import file
 * (`/mcpServers/<name>/url`).
 */
export function importEntry(root: string, name: string, entry: unknown): CreateToolsetBody {
  const at = (path: string): string => pointer([root, name]) + path;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new InvalidRequestError(
      [{ path: at(''), code: 'INVALID_TYPE', message: 'a server entry must be an object' }],
      `Server "${name}" is invalid`,
    );
  }
  const { type, ...fields } = entry as Record<string, unknown>;
  for (const field of CLIENT_ONLY_FIELDS) delete fields[field];
  const stdio = type === 'stdio' || (type === undefined && 'command' in fields);
  if (!stdio && type !== undefined && (typeof type !== 'string' || !(type in HTTP_TYPES))) {
    throw new InvalidRequestError(
      [{ path: at('/type'), code: 'INVALID_VALUE', message: 'type must be stdio, http, sse or streamable-http' }],
      `Server "${name}" is invalid`,
    );
  }
  const body = stdio
    ? { name, command: fields.command, ...fields }
    : { name, ...fields, transport: HTTP_TYPES[(type as string | undefined) ?? 'http'] };
  try {
    return parseRequest(createToolsetBody, body);
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    const problems: ProblemDetail[] = (error.errors ?? []).map((problem) => ({
      ...problem,
      path: at(problem.path === '/transport' ? '/type' : problem.path),
    }));
    throw new InvalidRequestError(problems, `Server "${name}" is invalid`);
  }
}
