import type { ApiKeyRecord } from '#workflow/nest';

/** A key as the API shows it: never the key (except once, at creation) and never its hash. */
export type ApiKeyView = ApiKeyRecord;

/** Copies the shown fields only, so nothing else a record may carry (a hash) can leave. */
export function apiKeyView(record: ApiKeyRecord): ApiKeyView {
  const { id, name, prefix, scopes, workflows, mcpServers, expiresAt, lastUsedAt, revokedAt, createdBy, createdAt } = record;
  return { id, name, prefix, scopes, workflows, mcpServers, expiresAt, lastUsedAt, revokedAt, createdBy, createdAt };
}
