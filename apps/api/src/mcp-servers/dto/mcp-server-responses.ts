import { z } from 'zod';

/** The answer of /mcp-servers as a zod schema (OpenAPI document). */
export const mcpServerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    url: z.string().meta({ description: 'The endpoint to give an MCP client' }),
    tools: z.array(z.object({ workflowId: z.string(), name: z.string(), description: z.string().nullable() })),
    createdAt: z.string().meta({ format: 'date-time' }),
    updatedAt: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'McpServer' });
