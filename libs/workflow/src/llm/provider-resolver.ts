/** Where a provider's requests go, with its key decrypted (never logged, never returned by the API). */
export interface ProviderEndpoint {
  baseURL: string;
  apiKey: string;
}

/** Port: finds a provider by id (the persistence layer implements it over MongoDB). */
export interface ProviderResolver {
  resolve(providerId: string): Promise<ProviderEndpoint | undefined>;
}
