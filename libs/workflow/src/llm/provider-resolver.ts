import type { ProviderEndpoint } from '../persistence/provider.repository.js';

/** Port: finds a provider by id (ProviderRepository fits it; llm/ wires the two, persistence names no port of llm/). */
export interface ProviderResolver {
  resolve(providerId: string): Promise<ProviderEndpoint | undefined>;
}
