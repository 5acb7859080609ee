import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyRepository, type StoredApiKey } from '#workflow/nest';
import { hashApiKey, looksLikeApiKey, sameHash } from './api-key-token.js';
import type { Scope } from './scopes.js';

/** Who is calling: what the guard attaches to a request and what other entry points (MCP) get. */
export interface Principal {
  keyId: string;
  name: string;
  scopes: readonly Scope[];
  /** Workflow ids the key is limited to; null = every workflow. */
  workflows: readonly string[] | null;
  /** MCP server ids the key's `mcp` scope reaches; null = every published server. */
  mcpServers: readonly string[] | null;
}

/** `lastUsedAt` is written at most this often per key and process. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * Token → principal, for the HTTP guard and for any other entry point (e.g. the MCP endpoint).
 * No cache: every call reads the key by its hash (one indexed read), so a revoked or expired key
 * stops working on every API process with the next request.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(private readonly keys: ApiKeyRepository) {}

  /** The principal of a valid key; undefined for anything else (malformed, unknown, revoked, expired). */
  async authenticate(token: string, now = new Date()): Promise<Principal | undefined> {
    if (!looksLikeApiKey(token)) return undefined;
    const hash = hashApiKey(token);
    const key = await this.keys.findByHash(hash);
    if (!key || !sameHash(key.hash, hash) || !usable(key, now)) return undefined;
    this.noteUse(key.id, now);
    return { keyId: key.id, name: key.name, scopes: key.scopes as Scope[], workflows: key.workflows, mcpServers: key.mcpServers };
  }

  /** Off the request path: not awaited, throttled per process, a failure is logged and forgotten. */
  private noteUse(keyId: string, now: Date): void {
    const last = this.lastUsedWrites.get(keyId) ?? 0;
    if (now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWrites.set(keyId, now.getTime());
    this.keys.touch(keyId, now).catch((error: unknown) => this.logger.warn({ err: error, keyId }, 'could not record lastUsedAt'));
  }
}

function usable(key: StoredApiKey, now: Date): boolean {
  return !key.revokedAt && (!key.expiresAt || key.expiresAt.getTime() > now.getTime());
}
