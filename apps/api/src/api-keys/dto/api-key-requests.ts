import { z } from 'zod';
import { isAdmin, SCOPES } from '../scopes.js';

const ids = (what: string) =>
  z
    .array(z.string().regex(/^[0-9a-f]{24}$/i, `not ${what} id`))
    .min(1)
    .max(100)
    .transform((list) => [...new Set(list)]);

/** Request bodies of /api-keys (strict: unknown fields are rejected with their path). */
export const createApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    scopes: z.array(z.enum(SCOPES)).min(1),
    /** Limits the key to these workflows (others answer 404 to it). */
    workflows: ids('a workflow').optional(),
    /** Limits the key's `mcp` scope to these published MCP servers (others answer 403 to it). */
    mcpServers: ids('an MCP server').optional(),
    expiresAt: z.iso
      .datetime({ offset: true })
      .transform((value) => new Date(value))
      .refine((date) => date.getTime() > Date.now(), 'must be in the future')
      .optional(),
  })
  .superRefine((body, ctx) => {
    // A repeated scope is a mistake (a typo for another one?), not something to merge silently.
    body.scopes.forEach((scope, index) => {
      if (body.scopes.indexOf(scope) !== index)
        ctx.addIssue({ code: 'custom', path: ['scopes', index], message: `"${scope}" is given twice` });
    });
    // A server list only narrows `mcp`: on a key without it, or with `admin` (which calls every server), it would mean nothing.
    if (!body.mcpServers) return;
    if (!body.scopes.includes('mcp'))
      ctx.addIssue({ code: 'custom', path: ['mcpServers'], message: 'only a key with the "mcp" scope may be limited to MCP servers' });
    else if (isAdmin(body.scopes))
      ctx.addIssue({ code: 'custom', path: ['mcpServers'], message: 'an "admin" key calls every MCP server: drop admin or mcpServers' });
  });
export type CreateApiKeyBody = z.output<typeof createApiKeyBody>;
