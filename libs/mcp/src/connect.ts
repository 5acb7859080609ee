import { Connection } from './client/connection.js';
import type { ConnectOptions, McpConnection, McpTarget, ResolvedTransport, ServerInfo, ToolSnapshot } from './types.js';

export interface ToolsetListing {
  serverInfo: ServerInfo;
  transport: ResolvedTransport;
  tools: ToolSnapshot[];
}

/** Opens a connection (Streamable HTTP, legacy SSE or stdio, as the target says). */
export function connectMcp(target: McpTarget, options?: ConnectOptions): Promise<McpConnection> {
  return Connection.open(target, options);
}

/** Connect, list every tool, close (session terminated) — what creating or refreshing a toolset needs. */
export async function listToolset(target: McpTarget, options?: ConnectOptions): Promise<ToolsetListing> {
  const connection = await connectMcp(target, options);
  try {
    const tools = await connection.listTools({ signal: options?.signal });
    return { serverInfo: connection.serverInfo, transport: connection.transport, tools };
  } finally {
    await connection.close();
  }
}
