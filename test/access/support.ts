import { expect } from '@jest/globals';
import { bearer } from '../support/auth.js';
import { api } from '../support/http.js';

/** What POST /api-keys answers: the key's view plus the key, once. */
export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  scopes: string[];
  workflows: string[] | null;
  mcpServers: string[] | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdBy: string | null;
}

/** Creates a key with the stack's admin key (the test support's default). */
export async function createKey(apiUrl: string, body: Record<string, unknown>): Promise<CreatedKey> {
  const res = await api<CreatedKey>(apiUrl, 'POST', '/api-keys', body);
  expect(res.status).toBe(201);
  return res.body;
}

/** A request made with the given key instead of the stack's admin key. */
export function as(key: string) {
  return <T = Record<string, unknown>>(apiUrl: string, method: string, path: string, body?: unknown) =>
    api<T>(apiUrl, method, path, body, bearer(key));
}

/** start → template → end: runs without any MCP server. */
export const greeting = (name: string) => ({
  name,
  inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'say', type: 'template', inputs: { text: { template: 'Hello {{start.who}}' } } },
    { id: 'end', type: 'end', inputs: { greeting: { ref: 'say.text' } } },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'end' },
  ],
});
