import { z } from 'zod';

/** Request bodies of /mcp-servers (strict: unknown fields are rejected with their path). */

/**
 * MCP's tool-name rule (2025-11-25): 1 to 128 characters, ASCII letters, digits, `_`, `-` and `.`,
 * case-sensitive. Names are unique per server (checked once every default name is known).
 */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const workflowId = z.string().regex(/^[0-9a-f]{24}$/i, 'not a workflow id');

const publishedTool = z.strictObject({
  workflowId,
  /** Default: derived from the workflow's name when the server is saved. */
  name: z.string().regex(TOOL_NAME, 'a tool name is 1 to 128 of A-Z a-z 0-9 _ - . (MCP tool-name rules)').optional(),
  /** Default: the workflow's own description, as it is when clients list the tools. */
  description: z.string().max(4000).optional(),
});

const name = z.string().trim().min(1).max(200);
const description = z.string().max(4000);
const tools = z.array(publishedTool).max(1000);

export const createMcpServerBody = z.strictObject({
  name,
  description: description.optional(),
  tools,
});
export type CreateMcpServerBody = z.output<typeof createMcpServerBody>;

export const updateMcpServerBody = z
  .strictObject({
    name: name.optional(),
    /** null removes it. */
    description: description.nullable().optional(),
    /** Replaces the whole list. */
    tools: tools.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'nothing to change: send name, description or tools');
export type UpdateMcpServerBody = z.output<typeof updateMcpServerBody>;
