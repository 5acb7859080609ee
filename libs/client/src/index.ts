import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export type McpflowClient = Client<paths>;

export interface McpflowClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
}

/**
 * A typed client of the mcpflow API (openapi-fetch over the types openapi-typescript generates
 * from docs/openapi.json): paths, parameters, bodies and answers are checked by the compiler.
 */
export function createMcpflowClient(baseUrl: string, options: McpflowClientOptions = {}): McpflowClient {
  const { apiKey, headers, ...rest } = options;
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  return createClient<paths>({ baseUrl, ...rest, headers: { ...auth, ...(headers as Record<string, string> | undefined) } });
}
