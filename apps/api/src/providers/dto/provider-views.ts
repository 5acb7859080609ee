import type { ProviderSummary } from '#workflow/nest';
import { MASK } from './provider-requests.js';

/** Response body of /providers. The API key never appears: it is always shown as "***". */
export interface ProviderView {
  id: string;
  name: string;
  baseURL: string;
  apiKey: typeof MASK;
  models: string[];
  createdAt: string;
  updatedAt: string;
}

export function providerView(provider: ProviderSummary): ProviderView {
  return {
    id: provider.id,
    name: provider.name,
    baseURL: provider.baseURL,
    apiKey: MASK,
    models: provider.models,
    createdAt: new Date(provider.createdAt).toISOString(),
    updatedAt: new Date(provider.updatedAt).toISOString(),
  };
}
