import { createContext, useContext, type ReactNode } from 'react';
import type { McpflowClient } from '#client';

export interface Api {
  client: McpflowClient;
  /** The pasted key, for the one call openapi-fetch cannot make: the event stream (read with fetch). */
  key: string;
  signOut(): void;
}

const ApiContext = createContext<Api | null>(null);

export function ApiProvider({ api, children }: { api: Api; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}
