import { createMcpflowClient, type McpflowClient } from '#client';

/** The key lives in this tab's sessionStorage only: closing the tab forgets it, other tabs never see it. */
const STORAGE_KEY = 'mcpflow.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** Same origin as the page: the console is served by the API it talks to. */
export function clientFor(key: string): McpflowClient {
  return createMcpflowClient(window.location.origin, { apiKey: key });
}
