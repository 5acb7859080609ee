import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyRepository } from '#workflow/nest';
import { generateApiKey } from './api-key-token.js';
import type { CreateApiKeyBody } from './dto/api-key-requests.js';
import { apiKeyView, type ApiKeyView } from './dto/api-key-views.js';

/** POST /api-keys: a new random key, stored as its hash; the answer is the only time the key is shown. */
@Injectable()
export class CreateApiKey {
  private readonly logger = new Logger(CreateApiKey.name);

  constructor(private readonly keys: ApiKeyRepository) {}

  /** `createdBy`: the key that asked, or null for the operator's one-off command. */
  async execute(body: CreateApiKeyBody, createdBy: string | null): Promise<ApiKeyView & { key: string }> {
    const { key, hash, prefix } = generateApiKey();
    const record = await this.keys.create({
      name: body.name,
      hash,
      prefix,
      scopes: body.scopes,
      workflows: body.workflows ?? null,
      mcpServers: body.mcpServers ?? null,
      expiresAt: body.expiresAt ?? null,
      createdBy,
    });
    this.logger.log({ apiKeyId: record.id, scopes: record.scopes, limited: record.workflows !== null }, 'API key created');
    return { ...apiKeyView(record), key };
  }
}
