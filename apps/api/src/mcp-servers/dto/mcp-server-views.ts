import type { McpServerRecord } from '#workflow/nest';

/** Response body of /mcp-servers: the record plus `url`, the endpoint to give an MCP client. */
export interface McpServerView {
  id: string;
  name: string;
  description: string | null;
  url: string;
  tools: Array<{ workflowId: string; name: string; description: string | null }>;
  createdAt: string;
  updatedAt: string;
}

export function mcpServerView(record: McpServerRecord, baseUrl: string): McpServerView {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    url: `${baseUrl}/mcp/${record.id}`,
    tools: record.tools.map((tool) => ({ workflowId: tool.workflowId, name: tool.name, description: tool.description ?? null })),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
